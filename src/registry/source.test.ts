/**
 * @module src/registry/source.test
 * Plugin source ids: relative to the root given (the config's folder), the
 * same from any working folder; absolute outside it; corral's own plugins
 * `plugin:corral/<folder>` wherever the package is and whatever the root;
 * every one a valid source id.
 */
import { after, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/helpers/host.js";
import { BUNDLED_PLUGINS_DIR } from "./bundled-plugins.js";
import { checkSourceId, pluginSourceId } from "./source.js";

describe("pluginSourceId", () => {
  const dir = tempDir("corral-source-");
  const project = join(dir.path, "project");
  mkdirSync(join(project, "tools"), { recursive: true });
  writeFileSync(join(project, "tools", "hello.ts"), "");
  after(() => dir.remove());

  it("is relative to the root, whatever the working folder", () => {
    assert.equal(pluginSourceId(join(project, "tools", "hello.ts"), project), "plugin:tools/hello.ts");
    assert.equal(pluginSourceId("hello.ts", project).startsWith("plugin:/"), true, "a relative path is the working folder's, here outside the root");
    assert.equal(pluginSourceId(project, project), "plugin:.");
    assert.equal(pluginSourceId(join(dir.path, "elsewhere.ts"), project), `plugin:${join(dir.path, "elsewhere.ts")}`);
  });

  it("never gives a project's own corral/ folder the bundled plugins' ids", () => {
    mkdirSync(join(project, "corral", "text-stats"), { recursive: true });
    assert.equal(pluginSourceId(join(project, "corral", "text-stats"), project), "plugin:./corral/text-stats");
    assert.equal(pluginSourceId(join(project, "corral"), project), "plugin:./corral");
    assert.equal(pluginSourceId(join(project, "corralx"), project), "plugin:corralx", "only the folder named corral is shown apart");
  });

  it("is the working folder's when no root is given (the library's default)", () => {
    const own = process.cwd();
    assert.equal(pluginSourceId(join(own, "x", "y.ts")), "plugin:x/y.ts");
  });

  it("names corral's own plugins by the package, not by where it is installed", () => {
    for (const root of [project, dir.path, "/"]) {
      const id = pluginSourceId(join(BUNDLED_PLUGINS_DIR, "unit-convert"), root);
      assert.equal(id, "plugin:corral/unit-convert");
      assert.equal(checkSourceId(id), "plugin");
    }
    assert.equal(pluginSourceId(BUNDLED_PLUGINS_DIR, project), "plugin:corral");
  });

  it("follows symlinks on both sides: a linked package or project gives the same ids", () => {
    const linkedPlugins = join(dir.path, "linked-plugins");
    symlinkSync(BUNDLED_PLUGINS_DIR, linkedPlugins);
    assert.equal(pluginSourceId(join(linkedPlugins, "text-stats"), project), "plugin:corral/text-stats");
    const linkedProject = join(dir.path, "linked-project");
    symlinkSync(project, linkedProject);
    assert.equal(pluginSourceId(join(linkedProject, "tools", "hello.ts"), project), "plugin:tools/hello.ts");
    assert.equal(pluginSourceId(join(project, "tools", "hello.ts"), linkedProject), "plugin:tools/hello.ts");
  });
});
