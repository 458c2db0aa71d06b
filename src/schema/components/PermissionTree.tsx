/**
 * A role's function permissions as a two-level checkbox tree built from
 * config/permissions.json: each module (level one) over its actions (level two),
 * modules grouped under their area. Value: {module: [actions]} with only modules that
 * hold an action. Texts: permission.group.<key>, permission.module.<key>,
 * permission.action.<action>. Read-pretty lists the granted modules with their actions.
 */
import { connect, mapProps, mapReadPretty } from '@formily/react';
import { Checkbox, Empty, Space, Tag, Typography, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { PERMISSION_GROUPS, PERMISSION_MODULES } from '../../../config/declared';

export type PermissionValue = Record<string, string[]>;

interface Props {
  value?: PermissionValue | null;
  onChange?: (value: PermissionValue) => void;
  disabled?: boolean;
}

const modules = PERMISSION_MODULES;
const groups = PERMISSION_GROUPS;

/** `value` with `module` set to `actions` (dropped when empty), keys in config order. */
export function withModule(value: PermissionValue | null | undefined, module: string, actions: string[]): PermissionValue {
  const next: PermissionValue = { ...(value ?? {}) };
  const all = modules[module] ?? [];
  const kept = all.filter((a) => actions.includes(a));
  if (kept.length) next[module] = kept;
  else delete next[module];
  return next;
}

export const moduleKey = (m: string) => `permission.module.${m}`;
export const actionKey = (a: string) => `permission.action.${a}`;
export const groupKey = (g: string) => `permission.group.${g}`;

function PermissionTreeInput({ value, onChange, disabled }: Props) {
  const { t } = useTranslation();
  const { token } = theme.useToken();
  const granted = (m: string) => value?.[m] ?? [];
  const setMany = (changes: Array<[string, string[]]>) => {
    let next = value ?? {};
    for (const [m, actions] of changes) next = withModule(next, m, actions);
    onChange?.(next);
  };
  return (
    <div data-testid="permission-tree" style={{ display: 'flex', flexDirection: 'column', gap: 12, width: '100%' }}>
      {groups.map((g) => {
        const total = g.modules.reduce((n, m) => n + (modules[m]?.length ?? 0), 0);
        const count = g.modules.reduce((n, m) => n + granted(m).length, 0);
        return (
          <div key={g.key} style={{ border: `1px solid ${token.colorBorderSecondary}`, borderRadius: token.borderRadius }}>
            <div style={{ padding: '6px 12px', background: token.colorFillAlter, borderBottom: `1px solid ${token.colorBorderSecondary}` }}>
              <Checkbox
                disabled={disabled}
                checked={total > 0 && count === total}
                indeterminate={count > 0 && count < total}
                onChange={(e) => setMany(g.modules.map((m) => [m, e.target.checked ? (modules[m] ?? []) : []]))}
              >
                <Typography.Text strong>{t(groupKey(g.key))}</Typography.Text>
              </Checkbox>
            </div>
            <div style={{ display: 'grid', gridTemplateColumns: 'repeat(auto-fill, minmax(440px, 1fr))', columnGap: 16 }}>
              {g.modules.map((m) => {
                const all = modules[m] ?? [];
                const has = granted(m);
                return (
                  <div key={m} data-module={m} style={{ display: 'flex', gap: 12, padding: '6px 12px', alignItems: 'baseline' }}>
                    <div style={{ width: 150, flex: 'none' }}>
                      <Checkbox
                        disabled={disabled}
                        checked={all.length > 0 && has.length === all.length}
                        indeterminate={has.length > 0 && has.length < all.length}
                        onChange={(e) => setMany([[m, e.target.checked ? all : []]])}
                      >
                        {t(moduleKey(m))}
                      </Checkbox>
                    </div>
                    <Checkbox.Group
                      disabled={disabled}
                      value={has}
                      onChange={(checked) => setMany([[m, checked as string[]]])}
                      options={all.map((a) => ({ value: a, label: t(actionKey(a)) }))}
                      style={{ rowGap: 4 }}
                    />
                  </div>
                );
              })}
            </div>
          </div>
        );
      })}
    </div>
  );
}

function PermissionTreeText({ value }: Props) {
  const { t } = useTranslation();
  const shown = groups.map((g) => ({ g, ms: g.modules.filter((m) => (value?.[m] ?? []).length) })).filter((x) => x.ms.length);
  if (!shown.length) return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('entity.permission.none')} />;
  return (
    <div data-testid="permission-tree" style={{ display: 'flex', flexDirection: 'column', gap: 8 }}>
      {shown.map(({ g, ms }) => (
        <div key={g.key}>
          <Typography.Text strong>{t(groupKey(g.key))}</Typography.Text>
          {ms.map((m) => (
            <div key={m} style={{ paddingLeft: 16, marginTop: 4 }}>
              <Space size={4} wrap>
                <span style={{ display: 'inline-block', minWidth: 160 }}>{t(moduleKey(m))}</span>
                {(value?.[m] ?? []).map((a) => (
                  <Tag key={a}>{t(actionKey(a))}</Tag>
                ))}
              </Space>
            </div>
          ))}
        </div>
      ))}
    </div>
  );
}

export const PermissionTree = connect(
  PermissionTreeInput,
  // A missing map is an empty one.
  mapProps((props: Props) => ({ ...props, value: props.value ?? {} })),
  mapReadPretty(PermissionTreeText),
);

export default PermissionTree;
