// Writes oclif.manifest.json so that oclif finds a command without importing every command file.
// It uses @oclif/core's own Plugin loader, which is what `oclif manifest` does, without pulling in the
// oclif packaging tool and its cloud SDKs as a dependency.
import { Plugin } from '@oclif/core';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const plugin = new Plugin({ root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true });
await plugin.load();
writeFileSync(new URL('../oclif.manifest.json', import.meta.url), JSON.stringify(plugin.manifest, null, 2));
console.error(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`);
