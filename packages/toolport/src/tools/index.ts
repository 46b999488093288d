import { defaultToolRegistry, type ToolRegistry } from '../core/tool-registry.ts';
import type { RegisteredTool } from '../core/tool-types.ts';
import { createBashTool } from './bash.ts';
import { editFileTool } from './edit-file.ts';
import { generateImageTool } from './generate-image.ts';
import { getCurrentDatetimeTool } from './get-current-datetime.ts';
import { globTool } from './glob.ts';
import { grepTool } from './grep.ts';
import { listDirectoryTool } from './list-directory.ts';
import { createPowershellTool } from './powershell.ts';
import { readFileTool } from './read-file.ts';
import { webPageSummaryTool } from './web-page-summary.ts';
import { writeFileTool } from './write-file.ts';
import { youtubeSummaryTool } from './youtube-summary.ts';
import { createZshTool } from './zsh.ts';

/**
 * The one place built-ins are registered (STYLE "tools/"). Tools whose availability depends on the machine (shells)
 * decide inside their own module and contribute only when available.
 */
export function listBuiltinTools(): RegisteredTool[] {
  return [
    getCurrentDatetimeTool,
    readFileTool,
    writeFileTool,
    editFileTool,
    listDirectoryTool,
    globTool,
    grepTool,
    generateImageTool,
    webPageSummaryTool,
    youtubeSummaryTool,
    // FS-6: each shell only when its interpreter is on PATH.
    ...[createBashTool(), createZshTool(), createPowershellTool()].filter((tool) => tool !== undefined),
  ];
}

const registered = new WeakSet<ToolRegistry>();

/** Registers every built-in into `registry` once (idempotent per registry). */
export function registerBuiltinTools(registry: ToolRegistry = defaultToolRegistry): ToolRegistry {
  if (registered.has(registry)) return registry;
  for (const tool of listBuiltinTools())
    registry.register(tool, { kind: 'builtin', origin: `builtin:${tool.definition.name}` });
  registered.add(registry);
  return registry;
}

// Self-registration at import, as the seed's lifecycle describes: importing toolport makes the built-ins available.
registerBuiltinTools(defaultToolRegistry);
