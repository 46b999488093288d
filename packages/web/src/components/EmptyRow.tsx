import type { ReactNode } from 'react';

/** The one row a loaded, empty table shows. */
export function EmptyRow({
  show,
  columns,
  children,
}: {
  show: boolean;
  columns: number;
  children: ReactNode;
}) {
  if (!show) return null;
  return (
    <tr>
      <td colSpan={columns} className="muted">
        {children}
      </td>
    </tr>
  );
}
