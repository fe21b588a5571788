#!/usr/bin/env node
// Runs the built CLI with oclif's development settings (stack traces, no manifest cache). CommonJS, as
// everything in bin/ is (bin/package.json).
'use strict';
const { join } = require('node:path');
const { execute } = require('@oclif/core');

void execute({ development: true, dir: join(__dirname, '..') });
