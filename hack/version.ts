// Prints this checkout's build version as pkg/version reads it (package version + git), as JSON for the
// version.json an image build bakes in where no .git exists: `npx tsx hack/version.ts > version.json`.
import { get } from "../pkg/version/version.js";

const { gitVersion, gitCommit, gitTreeState, buildDate } = get();
console.log(JSON.stringify({ gitVersion, gitCommit, gitTreeState, buildDate }, null, 2));
