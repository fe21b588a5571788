// The entry bin/run.js loads: oclif's runner, bundled with the commands so that both share one copy of
// @oclif/core and Node loads a few files instead of a hundred (docs/performance.md).
export { execute } from '@oclif/core/execute';
