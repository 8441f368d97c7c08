import { scenarioSchema } from './schema';

// Structural view of zod 4 schema definitions (`schema._zod.def`), enough to walk to a path.
interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  keyType?: { _zod: { def: Def } };
  valueType?: { _zod: { def: Def } };
  entries?: Record<string, string>;
}

function unwrap(def: Def): Def {
  while (def.innerType && ['optional', 'nullable', 'default', 'prefault', 'readonly'].includes(def.type)) {
    def = def.innerType._zod.def;
  }
  return def;
}

/** The keys a mapping at `path` of a scenario (or of another zod schema `root`) may hold, for "did you mean" hints. */
export function allowedKeys(path: readonly PropertyKey[], root: unknown = scenarioSchema): string[] {
  let def: Def | undefined = unwrap((root as unknown as { _zod: { def: Def } })._zod.def);
  for (const seg of path) {
    if (!def) return [];
    if (def.type === 'object' && typeof seg === 'string') def = def.shape?.[seg]?._zod.def;
    else if (def.type === 'array' && typeof seg === 'number') def = def.element?._zod.def;
    else if (def.type === 'record') def = def.valueType?._zod.def;
    else return [];
    if (def) def = unwrap(def);
  }
  if (def?.type === 'object') return Object.keys(def.shape ?? {});
  if (def?.type === 'record') {
    const keys = def.keyType ? unwrap(def.keyType._zod.def) : undefined;
    return keys?.entries ? Object.keys(keys.entries) : [];
  }
  return [];
}
