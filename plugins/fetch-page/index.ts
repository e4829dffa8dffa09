/**
 * @module plugins/fetch-page
 * The `fetch_page` tool: fetches a web page through the host (the `net_read`
 * effect: the host's allow-list decides which origins it may reach) and
 * answers its title, its links and its visible text. A page that is not
 * HTML is answered as text; a failed status is an error, with the status.
 */
import { defineTool, toolResult } from "corral";
import { z } from "zod";
import { summarisePage } from "./parse-html.js";

export default defineTool({
  name: "fetch_page",
  description:
    "Fetches a web page (http or https; only origins the host allows) and returns its title, its links (absolute URLs with their text) and its visible text (scripts and styles removed), cut to maxTextChars.",
  input: z.object({
    url: z.string().url().describe("The page's absolute URL"),
    maxLinks: z.number().int().min(0).max(1000).default(100).describe("Links to return at most"),
    maxTextChars: z.number().int().min(100).max(200_000).default(20_000).describe("Characters of text to return at most"),
  }),
  effects: ["net_read"],
  async run(input) {
    const response = await fetch(input.url, { headers: { accept: "text/html, text/plain;q=0.9, */*;q=0.5" } });
    if (!response.ok) throw new Error(`${input.url} answered ${response.status} ${response.statusText}`.trim());
    const type = response.headers.get("content-type") ?? "";
    const body = await response.text();
    const isHtml = /html|xml/i.test(type) || /^\s*<(?:!doctype|html)/i.test(body);
    const page = isHtml
      ? summarisePage(body, response.url, input)
      : { title: "", links: [], text: body.slice(0, input.maxTextChars), linksTruncated: false, textTruncated: body.length > input.maxTextChars };
    const structured = { url: response.url, status: response.status, contentType: type, ...page };
    const heading = page.title === "" ? response.url : `${page.title} (${response.url})`;
    return toolResult({
      text: `${heading}\n\n${page.text}${page.textTruncated ? "\n[text cut]" : ""}\n\nLinks: ${page.links.length}${page.linksTruncated ? "+" : ""}`,
      structured,
    });
  },
});
