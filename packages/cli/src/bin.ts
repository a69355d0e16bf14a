#!/usr/bin/env node
// `parley`: the command-line tool (docs/cli.md). Built to dist/bin.js for Node 20+; in the repository
// run from its sources on Node 24: `node --conditions=parley-source packages/cli/src/bin.ts` (scripts/parley).
import { main } from './program.ts';

process.exitCode = await main(process.argv);
