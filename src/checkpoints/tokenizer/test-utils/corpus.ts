/** A fixed English corpus for training the fixture tokenizers (deterministic: same text, same vocabulary). */
export const CORPUS = `Paris is the capital of France. The capital of France is Paris, and Paris is the largest city of France.
The city of Paris lies on the Seine. Many people visit Paris every year to see the city, the river and the museums.
Every country has a capital. The capital of Italy is Rome, the capital of Spain is Madrid, and the capital of
Germany is Berlin. A capital is often the largest city of the country, but not always: the capital of Australia is
Canberra, and the largest city of Australia is Sydney.

Attention is the heart of the transformer. In attention, every token looks at every other token and takes a
weighted sum of their values. The weights of attention come from the dot product of the query of one token and the
key of another token. Multi-head attention runs many heads of attention side by side; each head has its own query,
key and value. Multi-head latent attention stores a small latent vector for every token instead of the full key and
value of every head, and the key and value of every head are rebuilt from the latent vector.

In 1889 the Eiffel Tower was built in Paris for the World's Fair. The tower is 330 metres tall. In 2024 Paris held
the Olympic Games. People say "Paris is always a good idea", and many people agree: Paris is the city of light.
The model reads the prompt one token at a time; the capital of France is the first thing the model is asked about.
`;
