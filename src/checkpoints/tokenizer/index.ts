export type { TextTokenizer, TokenizerJson, AddedTokenJson } from './types';
export { tokenizerFromJson } from './from-json';
export { tokenizerFromGguf, ggufToTokenizerJson } from './from-gguf';
export { trainByteLevelBpe, type TrainedBpe } from './train';
export { supportedPreTokenizers } from './pre-tokenizers';
