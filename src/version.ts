import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The package's version, as its package.json says ('unknown' where that cannot be read). */
export function toolVersion(): string {
  try {
    return (JSON.parse(readFileSync(resolve(__dirname, '../package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
