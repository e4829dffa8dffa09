/**
 * @module sandbox/guest/web/form-data
 * `FormData` after the XHR standard (an ordered list of name/value entries,
 * a value a string or a File), its multipart/form-data encoding (HTML's
 * algorithm) and the parsers a body's `formData()` needs (multipart and
 * application/x-www-form-urlencoded). There is no form element in a tool,
 * so the constructor takes no argument. Written here for the reasons
 * ./blob.ts gives.
 */
import { Blob, blobBytes, File, isBlob } from "./blob.js";
import { encodeUtf8, TextDecoder } from "./text-codec.js";
import { concatBytes } from "./bytes.js";
import { intrinsics as I } from "../intrinsics.js";

type Entry = [string, string | File];

/** WebIDL's USVString: a lone surrogate becomes U+FFFD. */
function usv(value: unknown): string {
  return String(value).replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");
}

function entryOf(name: unknown, value: unknown, filename: unknown, argc: number): Entry {
  if (!isBlob(value)) {
    if (argc > 2) throw new TypeError("Failed to execute on 'FormData': parameter 2 is not of type 'Blob'.");
    return [usv(name), usv(value)];
  }
  const blob = value as Blob;
  const fileName = filename !== undefined ? usv(filename) : blob instanceof File ? blob.name : "blob";
  if (blob instanceof File && filename === undefined) return [usv(name), blob];
  return [usv(name), new File([blob], fileName, { type: blob.type, lastModified: blob instanceof File ? blob.lastModified : undefined })];
}

const LISTS = new WeakMap<FormData, Entry[]>();

function list(form: FormData): Entry[] {
  const entries = LISTS.get(form);
  if (entries === undefined) throw new TypeError("Illegal invocation: not a FormData");
  return entries;
}

export class FormData {
  constructor(form?: unknown) {
    if (form !== undefined) throw new TypeError("Failed to construct 'FormData': parameter 1 is not of type 'HTMLFormElement'.");
    LISTS.set(this, []);
  }
  append(name: string, value: unknown, filename?: string): void {
    if (arguments.length < 2) throw new TypeError("Failed to execute 'append' on 'FormData': 2 arguments required.");
    list(this).push(entryOf(name, value, filename, arguments.length));
  }
  set(name: string, value: unknown, filename?: string): void {
    if (arguments.length < 2) throw new TypeError("Failed to execute 'set' on 'FormData': 2 arguments required.");
    const entries = list(this);
    const entry = entryOf(name, value, filename, arguments.length);
    const first = entries.findIndex(([key]) => key === entry[0]);
    if (first === -1) return void entries.push(entry);
    entries[first] = entry;
    for (let i = entries.length - 1; i > first; i--) if ((entries[i] as Entry)[0] === entry[0]) entries.splice(i, 1);
  }
  delete(name: string): void {
    const key = usv(name);
    const entries = list(this);
    for (let i = entries.length - 1; i >= 0; i--) if ((entries[i] as Entry)[0] === key) entries.splice(i, 1);
  }
  get(name: string): string | File | null {
    const key = usv(name);
    return list(this).find(([k]) => k === key)?.[1] ?? null;
  }
  getAll(name: string): (string | File)[] {
    const key = usv(name);
    return list(this).filter(([k]) => k === key).map(([, value]) => value);
  }
  has(name: string): boolean {
    const key = usv(name);
    return list(this).some(([k]) => k === key);
  }
  forEach(callback: (value: string | File, key: string, parent: FormData) => void, thisArg?: unknown): void {
    if (typeof callback !== "function") throw new TypeError("Failed to execute 'forEach' on 'FormData': parameter 1 is not of type 'Function'.");
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }
  /** Live, as WebIDL's iterators are: an entry added while iterating is seen. */
  *entries(): IterableIterator<[string, string | File]> {
    const entries = list(this);
    for (let i = 0; i < entries.length; i++) yield [...(entries[i] as Entry)];
  }
  *keys(): IterableIterator<string> {
    for (const [key] of this.entries()) yield key;
  }
  *values(): IterableIterator<string | File> {
    for (const [, value] of this.entries()) yield value;
  }
  [Symbol.iterator](): IterableIterator<[string, string | File]> {
    return this.entries();
  }
}
I.ObjectDefineProperty(FormData.prototype, Symbol.toStringTag, { __proto__: null, value: "FormData", configurable: true } as PropertyDescriptor);

/** HTML's multipart/form-data encoding: the body's bytes and its content type (with a fresh boundary). */
export function encodeMultipart(form: FormData): { bytes: Uint8Array; type: string } {
  let boundary = "----corral-formdata-";
  for (let i = 0; i < 24; i++) boundary += "0123456789abcdef"[Math.floor(Math.random() * 16)];
  const escape = (text: string) => text.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");
  const parts: Uint8Array[] = [];
  for (const [name, value] of list(form)) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(name.replace(/\r\n?|\n/g, "\r\n"))}"`;
    if (typeof value === "string") {
      parts.push(encodeUtf8(`${head}\r\n\r\n${value.replace(/\r\n?|\n/g, "\r\n")}\r\n`));
      continue;
    }
    head += `; filename="${escape(value.name)}"\r\nContent-Type: ${value.type === "" ? "application/octet-stream" : value.type}\r\n\r\n`;
    parts.push(encodeUtf8(head), blobBytes(value) as Uint8Array, encodeUtf8("\r\n"));
  }
  parts.push(encodeUtf8(`--${boundary}--\r\n`));
  return { bytes: concatBytes(parts), type: `multipart/form-data; boundary=${boundary}` };
}

/** A body's FormData, by its content type; a TypeError when it is neither form type or does not parse. */
export function parseFormBody(bytes: Uint8Array, contentType: string | null): FormData {
  const mime = (contentType ?? "").split(";")[0]?.trim().toLowerCase();
  // The urlencoded parser decodes "UTF-8 without BOM": a leading U+FEFF is data, kept.
  if (mime === "application/x-www-form-urlencoded") return parseUrlEncoded(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes));
  if (mime === "multipart/form-data") {
    const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType ?? "");
    const boundary = match?.[1] ?? match?.[2];
    if (boundary !== undefined) return parseMultipart(bytes, boundary);
  }
  throw new TypeError("Failed to parse the body as FormData: its Content-Type is neither multipart/form-data nor application/x-www-form-urlencoded");
}

function parseUrlEncoded(text: string): FormData {
  const form = new FormData();
  const decode = (part: string) => {
    const bytes: number[] = [];
    const plain = part.replace(/\+/g, " ");
    for (let i = 0; i < plain.length; i++) {
      const hex = plain.slice(i + 1, i + 3);
      if (plain[i] === "%" && /^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(parseInt(hex, 16));
        i += 2;
      } else for (const byte of encodeUtf8(plain[i] as string)) bytes.push(byte);
    }
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array(bytes));
  };
  for (const pair of text.split("&")) {
    if (pair === "") continue;
    const at = pair.indexOf("=");
    form.append(decode(at === -1 ? pair : pair.slice(0, at)), decode(at === -1 ? "" : pair.slice(at + 1)));
  }
  return form;
}

function indexOf(bytes: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i + needle.length <= bytes.length; i++) {
    for (let j = 0; j < needle.length; j++) if (bytes[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

function parseMultipart(bytes: Uint8Array, boundary: string): FormData {
  const form = new FormData();
  const fail = () => new TypeError("Failed to parse the body as FormData: malformed multipart/form-data");
  const delimiter = encodeUtf8(`--${boundary}`);
  const headEnd = encodeUtf8("\r\n\r\n");
  let at = indexOf(bytes, delimiter, 0);
  if (at === -1) throw fail();
  for (;;) {
    at += delimiter.length;
    if (bytes[at] === 0x2d && bytes[at + 1] === 0x2d) return form; // "--": the close delimiter
    if (bytes[at] !== 0x0d || bytes[at + 1] !== 0x0a) throw fail();
    const headStart = at + 2;
    const bodyStart = indexOf(bytes, headEnd, headStart);
    if (bodyStart === -1) throw fail();
    const next = indexOf(bytes, encodeUtf8(`\r\n--${boundary}`), bodyStart + 4);
    if (next === -1) throw fail();
    const head = new TextDecoder().decode(bytes.subarray(headStart, bodyStart));
    const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(head)?.[1] ?? "";
    const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
    if (name === undefined) throw fail();
    const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1];
    const body = bytes.subarray(bodyStart + 4, next);
    const unescape = (text: string) => text.replace(/%0A/gi, "\n").replace(/%0D/gi, "\r").replace(/%22/g, '"');
    if (filename === undefined) form.append(unescape(name), new TextDecoder().decode(body));
    else {
      const type = /^content-type:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? "text/plain";
      form.append(unescape(name), new File([body], unescape(filename), { type }));
    }
    at = next + 2;
  }
}
