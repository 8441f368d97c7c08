import type { Position } from '../scenario/yaml-source';
import { YamlSource } from '../scenario/yaml-source';

/**
 * A sweep point's scenario as the scenario loader sees it: its value is the expanded point, its
 * lines those of the base (the `base:` mapping of the matrix file, or the base_file).
 */
export class PointSource extends YamlSource {
  constructor(
    text: string,
    file: string,
    private readonly prefix: readonly PropertyKey[],
    private readonly value: unknown,
    parsed?: YamlSource,
  ) {
    super(text, file, parsed);
  }

  override toJS(): unknown {
    return this.value;
  }

  override locate(path: readonly PropertyKey[], key = false): Position | undefined {
    return super.locate([...this.prefix, ...path], key);
  }
}
