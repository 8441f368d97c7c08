import { dirname, resolve as resolvePath } from 'node:path';

/** Directory that relative paths and external commands are taken from: the scenario file's (the working directory for an inline one). */
export const scenarioDir = (file: string | null): string => (!file || file.startsWith('<') ? process.cwd() : dirname(resolvePath(file)));
