/**
 * The trace contract: the run report's types and format constants, each defined once as a zod
 * schema (its `z.infer` the TS type, its JSON Schema the shipped schema/*.json). The ground floor
 * of src: it imports only zod and core's leaf constant modules (stage, path, fault names; dtypes).
 */
export * from './names';
export * from './precision';
export * from './scenario';
export * from './case-trace';
export * from './comparison';
export * from './case-result';
export * from './weights';
export * from './report';
export * from './progress';
