import type { FileAccessPolicy } from '../core/tool-types.ts';
import type { OperatorPolicy } from './operator-policy.ts';
import type { PolicySubject } from './policy-denied.ts';

/** How a non-admin binds a working directory (the refusal says it, so a user or a model knows what to do). */
export const BIND_WORKING_DIRECTORY_HINT =
  'Bind one to the chat first: PATCH /api/chats/<chatId> {"workingDirectory": "/absolute/dir", "mode": "agent"} ' +
  '(or create the chat with them), then call file tools in that chat.';

/**
 * SPEC AUTH-2 item "files confined by default in serve": a non-admin's filesystem tools run only inside the chat's
 * bound working directory; without one they are refused. Admins are not confined (the server-wide denied paths still
 * bind them, through `protectedPaths`). Hard links follow `files.allowHardLinks` for everyone.
 */
export function fileAccessFor(
  policy: OperatorPolicy,
  user: PolicySubject,
  workingDirectory: string | undefined,
): FileAccessPolicy {
  const allowHardLinks = policy.files.allowHardLinks;
  if (user.isAdmin || !policy.files.confineUsers) return { allowHardLinks };
  if (workingDirectory === undefined) {
    return {
      allowHardLinks,
      refusal: {
        policyKey: 'files.confineUsers',
        message:
          'Filesystem tools are refused: policy "files.confineUsers" runs a non-admin user\'s file tools only inside ' +
          `the chat's working directory, and this call has none. ${BIND_WORKING_DIRECTORY_HINT}`,
      },
    };
  }
  return {
    allowHardLinks,
    confinedTo: [workingDirectory],
    confinementSource: 'the chat\'s working directory, policy "files.confineUsers"',
  };
}
