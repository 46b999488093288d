/**
 * Denied to every filesystem tool, for everyone, whatever a policy file or a setting says (AUTH-2): the kernel's
 * views of processes (`/proc/<pid>/environ` holds the server's secrets), devices and system state. `serve` adds its
 * data directory and database file.
 */
export const MANDATORY_DENIED_PATHS: readonly string[] = ['/proc', '/sys', '/dev'];
