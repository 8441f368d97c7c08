import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
import type { Document, Node } from 'yaml';
import { MlaDiffError } from '../../errors';

export interface Position {
  line: number;
  column: number;
}

/** A parsed YAML file that can say on which line any field path sits. */
export class YamlSource {
  readonly doc: Document;
  private readonly lines = new LineCounter();

  constructor(
    readonly text: string,
    readonly file: string,
  ) {
    this.doc = parseDocument(text, { lineCounter: this.lines, prettyErrors: false, uniqueKeys: true });
    const err = this.doc.errors[0];
    if (err) {
      const at = this.lines.linePos(err.pos[0]);
      const msg = err.message.split('\n')[0] ?? 'invalid YAML';
      throw new MlaDiffError(
        'yaml-syntax',
        `YAML syntax error: ${msg.replace(/ at line \d+, column \d+:?$/, '')}`,
        { file, line: at.line, column: at.col },
        'check indentation, colons and quoting on that line',
      );
    }
  }

  toJS(): unknown {
    return this.doc.toJS();
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
