export type { TextTokenizer, TokenizerJson, AddedTokenJson, BosMode } from './types';
export { BOS_MODES } from './types';
export { tokenizerFromJson } from './from-json';
export { tokenizerFromGguf, ggufToTokenizerJson } from './from-gguf';
export { tokenizerFromFile } from './from-file';
export { trainByteLevelBpe, type TrainedBpe } from './train';
export { supportedPreTokenizers } from './pre-tokenizers';
