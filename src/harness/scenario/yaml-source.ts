import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import { MlaDiffError } from '../../errors';
import { checkYamlTree, lineOfCount, separators, YAML_MAX_ALIASES, YAML_MAX_CHARS, YAML_MAX_SEPARATORS } from './yaml-check';

export interface Position {
  line: number;
  column: number;
}

/** A parsed YAML file that can say on which line any field path sits. */
export class YamlSource {
  readonly doc: Document;
  private readonly lines: LineCounter;
  private built?: { js: unknown };
  private readonly firstAlias?: Position;

  /** `parsed`: the same text already parsed (a sweep's base, once for all its points), whose tree and lines are shared. */
  constructor(
    readonly text: string,
    readonly file: string,
    parsed?: YamlSource,
  ) {
    if (parsed && parsed.text === text) {
      this.doc = parsed.doc;
      this.lines = parsed.lines;
      this.firstAlias = parsed.firstAlias;
      return;
    }
    this.lines = new LineCounter();
    const items = text.length > YAML_MAX_CHARS ? 0 : separators(text);
    if (text.length > YAML_MAX_CHARS || items > YAML_MAX_SEPARATORS) {
      throw new MlaDiffError(
        'limit-exceeded',
        items
          ? `holds ${items} lines and list items; a scenario or sweep file holds at most ${YAML_MAX_SEPARATORS}`
          : `is ${text.length} characters; a scenario or sweep file is read up to ${YAML_MAX_CHARS}`,
        // the line where the limit is crossed
        { file, line: items ? lineOfCount(text, YAML_MAX_SEPARATORS + 1) : lineOfCount(text, YAML_MAX_CHARS + 1, true) },
        'scenarios are a few kB: give long prompts as length: N (ids drawn from the seed) or text:, not as ids',
      );
    }
    // uniqueKeys: false, as yaml's own check compares every pair of keys (50,000 keys took 20 s); checkYamlTree does it with a set.
    this.doc = this.parse(text);
    const err = this.doc.errors[0] ?? this.doc.warnings[0];
    if (err) this.syntax(err.pos[0], err.message.split('\n')[0] ?? 'invalid YAML');
    this.firstAlias = checkYamlTree(this.doc, this.lines, file);
  }

  private parse(text: string): Document {
    try {
      return parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: false, merge: false });
    } catch (e) {
      // The library's own guards (RESOURCE_EXHAUSTION) come back as errors; a stack it exhausts on deep nesting is thrown.
      if (e instanceof RangeError) {
        throw new MlaDiffError('limit-exceeded', 'nests too deep to parse', { file: this.file, line: 1 }, 'a scenario nests a few levels');
      }
      return this.syntax(0, e instanceof Error ? e.message : String(e));
    }
  }

  private syntax(offset: number, message: string): never {
    const at = this.lines.linePos(offset);
    throw new MlaDiffError(
      'yaml-syntax',
      `YAML syntax error: ${message.replace(/ at line \d+, column \d+:?$/, '')}`,
      { file: this.file, line: at.line, column: at.col },
      'check indentation, colons and quoting on that line',
    );
  }

  /** The document as JS, built once; aliases expand to at most YAML_MAX_ALIASES nodes' worth (yaml's maxAliasCount). */
  toJS(): unknown {
    if (this.built) return this.built.js;
    try {
      this.built = { js: this.doc.toJS({ maxAliasCount: YAML_MAX_ALIASES }) };
    } catch (e) {
      if (e instanceof MlaDiffError) throw e;
      // yaml throws ReferenceError "Excessive alias count" for a billion laughs: a YAML error, at the first alias.
      throw new MlaDiffError(
        'yaml-syntax',
        `YAML aliases expand beyond ${YAML_MAX_ALIASES} nodes (${e instanceof Error ? e.message : String(e)})`,
        { file: this.file, line: this.firstAlias?.line ?? 1, column: this.firstAlias?.column ?? 1 },
        'write the values out instead of nesting aliases of aliases',
      );
    }
    return this.built.js;
  }

  /**
   * Line of the value at `path` (or of its key, when `key` is set); the nearest existing
   * ancestor when the field is absent, so a missing field points at its parent.
   */
  locate(path: readonly PropertyKey[], key = false): Position | undefined {
    let node: unknown = this.doc.contents;
    let best: Node | undefined = node as Node | undefined;
    for (let i = 0; i < path.length; i++) {
      const seg = path[i];
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && p.key.value === seg);
        if (!pair) break;
        if (key && i === path.length - 1) return this.pos(pair.key as Node);
        node = pair.value;
        best = (pair.value ?? pair.key) as Node;
      } else if (isSeq(node) && typeof seg === 'number' && node.items[seg] !== undefined) {
        node = node.items[seg];
        best = node as Node;
      } else {
        break;
      }
    }
    return best ? this.pos(best) : undefined;
  }

  private pos(node: Node): Position | undefined {
    const start = node.range?.[0];
    if (start === undefined) return undefined;
    const p = this.lines.linePos(start);
    return { line: p.line, column: p.col };
  }
}
