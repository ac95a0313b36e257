// types/*.d.ts are tsc's output for src/ (strict checkJs), committed: regenerating them must
// give the same files, so a change to the source's JSDoc comes with its types.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(ROOT, "node_modules", "typescript", "bin", "tsc");

test("the committed types are tsc's, and the source type-checks", { skip: !existsSync(TSC) && "npm ci first" }, () => {
  const out = mkdtempSync(join(tmpdir(), "engine-types-"));
  try {
    execFileSync(process.execPath, [TSC, "-p", join(ROOT, "tsconfig.json"), "--outDir", out], { stdio: "pipe" });
    const committed = readdirSync(join(ROOT, "types")).sort();
    assert.deepEqual(readdirSync(out).sort(), committed);
    for (const name of committed) {
      assert.equal(readFileSync(join(out, name), "utf8"), readFileSync(join(ROOT, "types", name), "utf8"),
        `types/${name} is out of date: run \`npm run types\` in clients/js`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
