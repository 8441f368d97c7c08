/**
 * How deep JSON text nests, counted on the text before it is parsed. V8's JSON.parse survives any
 * depth, but what walks the value afterwards (schema checks, JSON.stringify) recurses and would
 * overflow the stack: a safetensors header or index, a backend's response, a saved report nested
 * deeper than MAX_JSON_DEPTH is refused as corrupt instead.
 */
export const MAX_JSON_DEPTH = 256;

/** The deepest nesting of arrays and objects in JSON text (brackets inside strings not counted), stopping past `limit`. */
export function jsonDepth(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // a backslash: the next character is escaped
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return deepest;
}
