/**
 * The report's buttons: exactly the actions the server says the user may take now
 * (detail.actions), in the workflow table's order, except the lock's heartbeat; Save
 * (Ctrl+S) always shows and is enabled only when `save` is among them. An action that
 * asks something first opens its dialog (./ActionDialogs); printing and the preview
 * open helper P's "ReportPrint" dialog from the registry, and stay disabled until it
 * is registered. Texts: entity.report.action.<action>.
 */
import { EyeOutlined, SaveOutlined } from '@ant-design/icons';
import { Button, Flex, Tooltip } from 'antd';
import { Suspense, useState } from 'react';
import { dialogComponent, dialogNames } from '../schema/dialogs';
import { useTranslate } from '../schema/useTranslate';
import type { ReportAction } from '../shared/generated/entities/reportAction';
import { AskDialog } from './ActionDialogs';
import type { ReportDetail } from './api';
import { actionOf, AUTOMATIC_ACTIONS, DIALOG_ACTIONS, needsOf, needsContent, type Needs } from './workflow';

const PRINT_DIALOG = 'ReportPrint';

export interface ActionBarProps {
  detail: ReportDetail;
  busy?: string;
  run(action: string, extra?: Partial<ReportAction>): Promise<boolean>;
  /** The print dialog closed having printed: read the report again. */
  onPrinted(): void;
}

/** How a button looks, from what its action does: sending the report on is primary, a reasoned refusal is dangerous. */
function look(name: string): { type?: 'primary'; danger?: boolean } {
  if (needsContent(name)) return { type: 'primary' };
  const action = actionOf(name);
  return action?.reason && !action.content ? { danger: true } : {};
}

export function ActionBar({ detail, busy, run, onPrinted }: ActionBarProps) {
  const { t } = useTranslate();
  const [asking, setAsking] = useState<{ action: string; needs: Exclude<Needs, { kind: 'none' }> }>();
  const [printing, setPrinting] = useState<string>();
  const printable = dialogNames().includes(PRINT_DIALOG);
  // With the lock one's own, taking it again is its renewal and undoing it is releasing it: neither is offered twice.
  const shown = detail.actions.filter((a) => a !== 'save' && !AUTOMATIC_ACTIONS.includes(a) && !(detail.lockMine && (a === 'lock' || a === 'unlock')));

  const start = (name: string) => {
    if (DIALOG_ACTIONS[name]) {
      setPrinting(name);
      return;
    }
    const needs = needsOf(name);
    if (needs.kind === 'none') void run(name);
    else setAsking({ action: name, needs });
  };

  const Print = printing && printable ? dialogComponent(PRINT_DIALOG) : undefined;
  return (
    <Flex gap={8} wrap align="center" data-testid="report-actions">
      <Tooltip title="Ctrl+S">
        <Button icon={<SaveOutlined />} onClick={() => void run('save')} disabled={!detail.actions.includes('save')} loading={busy === 'save'} data-testid="report-save">
          {t('entity.report.action.save')}
        </Button>
      </Tooltip>
      {shown.map((name) => (
        <Button
          key={name}
          {...look(name)}
          onClick={() => start(name)}
          loading={busy === name}
          disabled={Boolean(busy && busy !== name) || (Boolean(DIALOG_ACTIONS[name]) && !printable)}
          data-testid={`report-action-${name}`}
        >
          {t(`entity.report.action.${name}`)}
        </Button>
      ))}
      <Tooltip title={printable ? undefined : t('entity.report.detail.previewUnavailable')}>
        <Button icon={<EyeOutlined />} disabled={!printable} onClick={() => setPrinting('preview')} data-testid="report-preview">
          {t('entity.report.detail.preview')}
        </Button>
      </Tooltip>
      {asking && <AskDialog action={asking.action} needs={asking.needs} reportId={detail.id} send={(extra) => run(asking.action, extra)} onClose={() => setAsking(undefined)} />}
      {Print && (
        <Suspense fallback={null}>
          <Print
            row={{ ...detail, id: detail.id }}
            title={t(printing === 'preview' ? 'entity.report.detail.preview' : `entity.report.action.${printing}`)}
            props={{ preview: printing === 'preview' }}
            onClose={(changed) => {
              setPrinting(undefined);
              if (changed) onPrinted();
            }}
          />
        </Suspense>
      )}
    </Flex>
  );
}
