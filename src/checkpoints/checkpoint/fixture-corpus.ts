/**
 * The text our fixture tokenizer is trained on: plain English about the prompts the scenarios
 * use, so "The capital of France is" and friends become a handful of tokens.
 */
export const FIXTURE_CORPUS = `
The capital of France is Paris. Paris is the capital and the largest city of France.
The capital of Germany is Berlin. The capital of Italy is Rome. The capital of Spain is Madrid.
What is the capital of France? The answer is Paris, the city of light on the river Seine.
Hello, world! Hello again. The model printed garbage for Hello, and the engineers looked for the bug.
Multi-head latent attention compresses the keys and values of every token into a latent vector.
The attention of the model runs two ways: the prefill path and the decode path give the same output.
The query, the key and the value of each head come from the latent cache through the up projection.
The norm of the attention output should be about thirty, not zero point zero five.
When the two paths part, the first stage where they differ tells where the bug is.
The quick brown fox jumps over the lazy dog. The lazy dog sleeps in the sun.
In 2024 and 2025 the models grew larger, and the caches grew with them: 512 latent values per token.
Numbers like 0.0625, 576 and 6144 appear in the config of the model.
`;
