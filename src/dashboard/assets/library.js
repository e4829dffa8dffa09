// An agent's tools in the library (what /api/source answers for agent:<id>):
// each tool's current version and state, and its latest versions with when,
// by whom, the content hash and the description. Text only, through `el`
// (textContent): nothing of a manifest is ever parsed as HTML.

/** The section's heading and table, or null for a source that is no agent. */
export function libraryPanel(library, { el, when }) {
  if (library === undefined || library === null) return null;
  const rows = library.tools.flatMap((tool) => [
    el("tr", { attrs: { "data-library-tool": tool.name } }, [
      el("td", {}, [el("div", { class: "mono tool-name", text: tool.name })]),
      el("td", { class: "num", text: `v${tool.current}` }),
      el("td", { class: "num", text: String(tool.versions) }),
      el("td", {}, [el("span", { class: `badge ${tool.retiredAt === null ? "ok" : ""}`, text: tool.retiredAt === null ? "live" : `retired ${when(tool.retiredAt)}` })]),
      el("td", { text: when(tool.updatedAt) }),
    ]),
    ...tool.latest.map((version) =>
      el("tr", { class: "version", attrs: { "data-library-version": `${tool.name}@${version.version}` } }, [
        el("td", { class: "mono small", text: `${version.version === tool.current ? "▸ " : "  "}v${version.version}` }),
        el("td", { class: "mono small", text: version.hash.slice(0, 12) }),
        el("td", { class: "small", text: version.caller ?? "program" }),
        el("td", { class: "small", text: when(version.createdAt) }),
        el("td", { class: "small", text: version.description }),
      ]),
    ),
  ]);
  const table = el("div", { class: "table-wrap" }, [
    el("table", { class: "tools library" }, [
      el("thead", {}, [el("tr", {}, ["Tool / version", "Current / hash", "Versions / by", "State / written", "Updated / description"].map((name) => el("th", { text: name })))]),
      el("tbody", {}, rows.length ? rows : [el("tr", {}, [el("td", { class: "empty-note", text: "This agent has no tools in the library.", attrs: { colspan: 5 } })])]),
    ]),
  ]);
  return [el("h3", { text: `Library (${library.total} tool${library.total === 1 ? "" : "s"})` }), table];
}
