#!/usr/bin/env node
// The CLI entry: a plain node script so that `npx corral` works without flags.
import { main } from "../dist/src/cli/main.js";

process.exitCode = await main(process.argv.slice(2));
