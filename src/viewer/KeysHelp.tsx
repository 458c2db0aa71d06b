/**
 * The keys help (the viewer's toolbar, the report page's header): a table of keys and
 * what they do, the viewer's from ./keys.ts after the host's own. No Cornerstone here,
 * so a page that does not show images may list them.
 */
import { Typography } from 'antd';
import { READING_KEYS } from './keys';

export interface KeyRow {
  keys: string;
  text: string;
}

export function KeysHelp({ t, extra = [], testId }: { t: (key: string) => string; extra?: KeyRow[]; testId: string }) {
  const rows = [...extra, ...READING_KEYS.map((k) => ({ keys: k.keys, text: t(`entity.viewer.keys.${k.does}`) }))];
  return (
    <table data-testid={testId} style={{ borderSpacing: '12px 2px' }}>
      <tbody>
        {rows.map((r) => (
          <tr key={r.keys}>
            <td>
              <Typography.Text keyboard>{r.keys}</Typography.Text>
            </td>
            <td>{r.text}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
