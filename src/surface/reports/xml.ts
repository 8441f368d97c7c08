/**
 * A small XML writer for the JUnit report (no dependency: fast-xml-parser is a dev dependency,
 * used by the tests to check what this writes).
 */

// Characters XML 1.0 forbids (C0 controls but tab, LF, CR; U+FFFE, U+FFFF; lone surrogates).
const FORBIDDEN =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const TEXT: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
// In attributes, quotes and whitespace other than space too: a parser normalizes raw tab/LF/CR to spaces.
const ATTR: Record<string, string> = { ...TEXT, '"': '&quot;', "'": '&apos;', '\t': '&#9;', '\n': '&#10;', '\r': '&#13;' };

/** Element text: markup characters escaped, forbidden characters replaced by U+FFFD. */
export const xmlText = (s: string): string => s.replace(FORBIDDEN, '\uFFFD').replace(/[&<>]/g, (c) => TEXT[c]!);

/** An attribute value (written in double quotes). */
export const xmlAttr = (s: string): string => s.replace(FORBIDDEN, '\uFFFD').replace(/[&<>"'\t\n\r]/g, (c) => ATTR[c]!);

export type Attrs = Record<string, string | number | undefined>;

const attrs = (a: Attrs): string =>
  Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${xmlAttr(String(v))}"`)
    .join('');

/**
 * An element: children are already-written elements (one per line; not re-indented, so that
 * multi-line text inside them stays as written), a string is escaped text, nothing makes it empty.
 */
export function xmlElement(name: string, a: Attrs, children?: string[] | string): string {
  if (children === undefined || (Array.isArray(children) && !children.length)) return `<${name}${attrs(a)}/>`;
  if (typeof children === 'string') return `<${name}${attrs(a)}>${xmlText(children)}</${name}>`;
  return `<${name}${attrs(a)}>\n${children.join('\n')}\n</${name}>`;
}
