/**
 * The trace contract: the run report's types and format constants, each defined once as a zod
 * schema (its `z.infer` the TS type, its JSON Schema the shipped schema/*.json). The ground floor
 * of src: it imports only zod. It also names what a report speaks of: the stages and paths (stages.ts), the
 * faults (faults.ts), the layer configuration (model-config.ts).
 */
export * from './names';
export * from './stages';
export * from './faults';
export type * from './model-config';
export * from './precision';
export * from './scenario';
export * from './case-trace';
export * from './comparison';
export * from './case-result';
export * from './weights';
export * from './report';
export * from './progress';
