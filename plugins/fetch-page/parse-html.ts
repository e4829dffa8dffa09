/**
 * @module plugins/fetch-page/parse-html
 * Just enough HTML reading for a page summary: the title, the links (with
 * their text, resolved against the page's URL) and the visible text. Not a
 * full HTML parser: scripts, styles and comments are dropped, tags are
 * stripped, the common entities are decoded; block elements become breaks.
 */

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", copy: "©", reg: "®", hellip: "…", mdash: "—", ndash: "–", rsquo: "’", lsquo: "‘", rdquo: "”", ldquo: "“" };
const BLOCKS = /<\/?(?:p|div|br|li|ul|ol|h[1-6]|tr|table|section|article|header|footer|nav|main|blockquote|pre|hr)\b[^>]*>/gi;

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function stripTags(html: string): string {
  return decodeEntities(html.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ").trim();
}

function withoutInvisible(html: string): string {
  return html.replace(/<!--[\s\S]*?-->/g, " ").replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, " ");
}

export type PageLink = { href: string; text: string };
export type PageSummary = { title: string; links: PageLink[]; text: string };

export function summarisePage(html: string, baseUrl: string, limits: { maxLinks: number; maxTextChars: number }): PageSummary & { linksTruncated: boolean; textTruncated: boolean } {
  const visible = withoutInvisible(html);
  const titleMatch = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(visible);
  const title = titleMatch ? stripTags(titleMatch[1] as string) : "";
  const links: PageLink[] = [];
  const seen = new Set<string>();
  let linksTruncated = false;
  for (const match of visible.matchAll(/<a\b([^>]*)>([\s\S]*?)<\/a\s*>/gi)) {
    const href = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/i.exec(match[1] as string);
    const raw = href ? decodeEntities((href[1] ?? href[2] ?? href[3] ?? "").trim()) : "";
    if (raw === "" || /^(?:javascript|mailto|data):/i.test(raw)) continue;
    let resolved: string;
    try {
      resolved = new URL(raw, baseUrl).href;
    } catch {
      continue;
    }
    if (seen.has(resolved)) continue;
    if (links.length >= limits.maxLinks) {
      linksTruncated = true;
      break;
    }
    seen.add(resolved);
    links.push({ href: resolved, text: stripTags(match[2] as string) });
  }
  const body = /<body\b[^>]*>([\s\S]*)<\/body\s*>/i.exec(visible)?.[1] ?? visible.replace(/<head\b[\s\S]*?<\/head\s*>/i, " ");
  const text = decodeEntities(body.replace(BLOCKS, "\n").replace(/<[^>]*>/g, " "))
    .split("\n")
    .map((line) => line.replace(/[ \t\f\v\u00a0]+/g, " ").trim())
    .filter((line) => line !== "")
    .join("\n");
  const textTruncated = text.length > limits.maxTextChars;
  return { title, links, text: textTruncated ? text.slice(0, limits.maxTextChars) : text, linksTruncated, textTruncated };
}
