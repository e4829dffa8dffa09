/**
 * @module plugins/csv-to-json/parse-csv
 * An RFC 4180 reader: text in, records (arrays of fields) out. Quoted fields
 * may hold delimiters, doubled quotes and line breaks; records end at CRLF,
 * LF or a lone CR. It is one pass over the text with no backtracking, so its
 * time is linear whatever the input.
 *
 * Leniency is chosen where data is plainly recoverable: a quote inside an
 * unquoted field is kept as text (`5" screen`), and blank lines are skipped.
 * It is strict where a guess could shift columns: text after a closing quote
 * and an unterminated quoted field are errors naming the line.
 */

export function parseCsv(text: string, delimiter: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  // Whether the current record has anything in it: a blank line is skipped,
  // but `""` alone on a line is a record with one empty field.
  let recordStarted = false;
  let line = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;

  const endField = () => {
    record.push(field);
    field = "";
  };
  const endRecord = () => {
    if (recordStarted || record.length > 0 || field !== "") {
      endField();
      records.push(record);
    }
    record = [];
    field = "";
    recordStarted = false;
  };
  const lineBreakLength = (at: number) => (text[at] === "\r" && text[at + 1] === "\n" ? 2 : text[at] === "\r" || text[at] === "\n" ? 1 : 0);

  while (i < text.length) {
    const c = text[i];
    if (c === '"' && field === "") {
      // A quoted field: read to the closing quote, turning "" into ".
      const startLine = line;
      i++;
      for (;;) {
        if (i >= text.length) throw new Error(`unterminated quoted field starting on line ${startLine}: add the closing quote`);
        const q = text[i];
        if (q === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (lineBreakLength(i) > 0) line++;
        // Keep a quoted CRLF as it was written; count it as one line.
        if (q === "\r" && text[i + 1] === "\n") {
          field += "\r\n";
          i += 2;
          continue;
        }
        field += q;
        i++;
      }
      recordStarted = true;
      if (i < text.length && text[i] !== delimiter && lineBreakLength(i) === 0) {
        throw new Error(`unexpected text after a closing quote on line ${line}: quote the whole field and double any quote inside it ("")`);
      }
      continue;
    }
    if (c === delimiter) {
      endField();
      recordStarted = true;
      i++;
      continue;
    }
    const breakLength = lineBreakLength(i);
    if (breakLength > 0) {
      endRecord();
      line++;
      i += breakLength;
      continue;
    }
    field += c;
    i++;
  }
  endRecord();
  return records;
}
