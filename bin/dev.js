#!/usr/bin/env node
// Runs the built CLI with oclif's development settings (stack traces, no manifest cache).
import { execute } from '@oclif/core';

await execute({ development: true, dir: import.meta.url });
