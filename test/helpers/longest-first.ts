// Both projects' files share one pool of workers, so the suite ends when its longest file does if that file starts
// late. vitest orders by its own cache of last durations, which a fresh clone (CI) lacks: it falls back to file size
// and puts every e2e file before every unit file. This orders all files by their last measured wall time, longest
// first: vitest's cache where it has the file, else test/durations.json (`npm run test:durations` rewrites it).
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const committed = JSON.parse(readFileSync(new URL('../durations.json', import.meta.url), 'utf8')) as Record<string, number>;

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sized = await super.sort(files);
    const expected = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${spec.moduleId.slice(this.ctx.config.root.length + 1)}`;
      const cached = this.ctx.cache.getFileTestResults(key);
      // A file never measured goes first: it may be long, and a short one costs little there.
      return cached ? cached.duration : (committed[key] ?? Number.POSITIVE_INFINITY);
    };
    const order = new Map(sized.map((spec) => [spec, expected(spec)]));
    return sized.sort((a, b) => order.get(b)! - order.get(a)!);
  }
}
