/**
 * @module src/registry/catalog
 * The tools the host knows, by name, and which source owns each. Names are
 * looked up as own keys of a Map, so `constructor` or `__proto__` is never a
 * tool by accident. Loading a source again replaces all of its tools at once.
 */
import type { TalkBack } from "../capabilities/talk-back.js";
import type { Context } from "@opentelemetry/api";
import type { BundleRef } from "../../sandbox/shared/task-parts.js";
import type { Control } from "../../sandbox/shared/guest-envelope.js";
import type { FastLane } from "../../sandbox/shared/fast-lane-schemas.js";
import type { AskUser } from "../gate/gate.js";
import type { Caller } from "./caller.js";
import type { ErrorKind } from "../result.js";
import type { Manifest } from "./manifest.js";

/** What a built-in (host-side, trusted) tool answers. */
export type BuiltinAnswer =
  | { ok: true; text: string; structured?: unknown; control?: Control }
  | { ok: false; kind: ErrorKind; message: string };

/** `caller`: the id of whom the call is for (a model's, a session's), absent for the embedding program's own calls. */
export type BuiltinRun = (input: unknown, context: { callId: string; signal: AbortSignal | undefined; caller?: string | undefined }) => Promise<BuiltinAnswer>;

/** What a script's tool calls carry of the script's own call: its span, signal, scope, how to ask the person behind it, and where its tools' talk-back goes. */
export type ScriptCallContext = { traceContext: Context; signal: AbortSignal | undefined; scope: string | undefined; askUser?: AskUser | undefined; talkBack: TalkBack };

/** How a script's run ended, for its owner: a fast nested call its worker's death was charged to, if any. */
export type ScriptEnd = { culprit?: { tool: number; id: string; kind: "timeout" | "memory" | "crash" | "cancelled"; message: string } };

/**
 * One Code Mode script's call (src/codemode makes it per call): it runs in
 * the sandbox like a tool, with `inputJson` as its input; `open` makes its
 * tool calls answerable until the returned function is called, which
 * records what is left (the fast lane's last records, a culprit's strike)
 * and answers what goes into the result's `details` (the calls it made).
 * `fastLane`: the tools its worker may run without asking per call (the
 * call path adds the script's scope).
 */
export type ScriptRunner = {
  kind: "script";
  bundle: BundleRef;
  inputJson: string;
  fastLane?: FastLane;
  open(callId: string, context: ScriptCallContext): (end: ScriptEnd) => Promise<Record<string, unknown>>;
};

/** `run_code` in the catalog: each call is prepared into its own entry (source `code:<caller id>`), or refused. */
export type CodeModeRunner = {
  kind: "codemode";
  prepare(input: unknown, caller: Caller | undefined): Promise<{ ok: true; entry: CatalogEntry } | { ok: false; kind: ErrorKind; message: string }>;
};

/**
 * A tool of the library (src/library) not yet loaded in this host: its
 * manifest is the stored one, and `load` compiles and describes its module
 * in a worker on first need, checks it against the row, and answers the
 * entry that replaces this one (a sandbox runner), or why it is refused.
 */
export type StoredRunner = {
  kind: "stored";
  load(): Promise<{ ok: true; entry: CatalogEntry } | { ok: false; kind: ErrorKind; message: string }>;
};

/** How a tool runs: its bundle in a sandbox, a built-in function of the host, a Code Mode script, or a library tool still to load. */
export type Runner = { kind: "sandbox"; bundle: BundleRef } | { kind: "builtin"; run: BuiltinRun } | CodeModeRunner | ScriptRunner | StoredRunner;

export type CatalogEntry = {
  manifest: Manifest;
  source: string;
  /** The bundle's content hash: the source's version. */
  version: string;
  runner: Runner;
};

export class Catalog {
  readonly #byName = new Map<string, CatalogEntry>();
  readonly #bySource = new Map<string, string[]>();
  #generation = 0;

  /** Moves on every change: what is built from the list (a search index) is rebuilt when it moved. */
  get generation(): number {
    return this.#generation;
  }

  get(name: string): CatalogEntry | undefined {
    return this.#byName.get(name);
  }

  list(): CatalogEntry[] {
    return [...this.#byName.values()];
  }

  /** Tools of one source. */
  ofSource(source: string): CatalogEntry[] {
    return (this.#bySource.get(source) ?? []).flatMap((name) => {
      const entry = this.#byName.get(name);
      return entry === undefined ? [] : [entry];
    });
  }

  /** Names in `manifests` already owned by a different source. */
  conflicts(source: string, names: string[]): { name: string; owner: string }[] {
    return names.flatMap((name) => {
      const owner = this.#byName.get(name)?.source;
      return owner !== undefined && owner !== source ? [{ name, owner }] : [];
    });
  }

  /** Replaces every tool of `source` with `entries` (check conflicts first). */
  replaceSource(source: string, entries: CatalogEntry[]): void {
    for (const name of this.#bySource.get(source) ?? []) this.#byName.delete(name);
    for (const entry of entries) this.#byName.set(entry.manifest.name, entry);
    this.#bySource.set(
      source,
      entries.map((entry) => entry.manifest.name),
    );
    this.#generation++;
  }

  /** Puts each entry under its name (its source's other tools stay); check conflicts first. */
  upsert(entries: CatalogEntry[]): void {
    for (const entry of entries) {
      const name = entry.manifest.name;
      const before = this.#byName.get(name);
      if (before !== undefined && before.source !== entry.source) this.#unlist(before.source, name);
      this.#byName.set(name, entry);
      const names = this.#bySource.get(entry.source) ?? [];
      if (!names.includes(name)) this.#bySource.set(entry.source, [...names, name]);
    }
    this.#generation++;
  }

  /** Takes these tools out, whichever source owns them. */
  remove(names: Iterable<string>): void {
    for (const name of names) {
      const entry = this.#byName.get(name);
      if (entry === undefined) continue;
      this.#byName.delete(name);
      this.#unlist(entry.source, name);
    }
    this.#generation++;
  }

  #unlist(source: string, name: string): void {
    const names = (this.#bySource.get(source) ?? []).filter((other) => other !== name);
    if (names.length === 0) this.#bySource.delete(source);
    else this.#bySource.set(source, names);
  }
}
