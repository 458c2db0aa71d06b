/**
 * The template side tab: public and private templates as their tree (GET template/tree:
 * level 1 class → level 2 class → template), a picked template's text, applied into
 * findings and diagnosis by replacing or appending (double-click appends), and the
 * current text saved as a private template. The save form is the template schema's
 * (names and classes 1-16 characters), through the schema machinery.
 */
import { createForm } from '@formily/core';
import { App, Button, Card, Empty, Flex, Modal, Segmented, Spin, Tree, Typography } from 'antd';
import type { DataNode } from 'antd/es/tree';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { usePermissionMap } from '../schema/permissions';
import { SchemaForm } from '../schema/SchemaForm';
import { showServerError } from '../schema/useEntityForm';
import { useTranslate } from '../schema/useTranslate';
import { can } from '../session/access';
import { saveTemplate, templateTree, type TemplateRow, type TemplateScope, type TemplateTree } from './api';
import { formView } from './RecordView';

const SCOPES: readonly TemplateScope[] = ['public', 'private'];
const MODULE: Record<TemplateScope, string> = { public: 'publicTemplate', private: 'privateTemplate' };
const SAVE_VIEW = formView('template', 'template', ['className1', 'className2', 'templateName'], 1);

export interface TemplatePanelProps {
  /** Texts may be applied (the write panel is editable). */
  editable: boolean;
  onApply(template: TemplateRow, mode: 'replace' | 'append'): void;
  /** What "save as template" saves. */
  current: { see: string; diagnosis: string };
  /** Level 1 class offered for a new template (the exam's modality). */
  defaultClass?: string;
}

function treeData(tree: TemplateTree): { nodes: DataNode[]; byKey: Map<string, TemplateRow>; classKeys: string[] } {
  const byKey = new Map<string, TemplateRow>();
  const classKeys: string[] = [];
  const nodes = tree.map((c1) => {
    const k1 = `c1:${c1.name}`;
    classKeys.push(k1);
    return {
      key: k1,
      title: c1.name,
      selectable: false,
      children: c1.children.map((c2) => {
        const k2 = `c2:${c1.name}/${c2.name}`;
        classKeys.push(k2);
        return {
          key: k2,
          title: c2.name,
          selectable: false,
          children: c2.children.map((tpl) => {
            const key = `t:${tpl.id}`;
            byKey.set(key, tpl);
            return { key, title: <span data-testid="template-node">{tpl.templateName}</span>, isLeaf: true };
          }),
        };
      }),
    };
  });
  return { nodes, byKey, classKeys };
}

export function TemplatePanel({ editable, onApply, current, defaultClass }: TemplatePanelProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const map = usePermissionMap();
  const scopes = SCOPES.filter((s) => can(map, `${MODULE[s]}:view`));
  const [scope, setScope] = useState<TemplateScope | undefined>(scopes[0]);
  const [tree, setTree] = useState<TemplateTree>();
  const [picked, setPicked] = useState<TemplateRow>();
  const [saving, setSaving] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    if (!scope) return undefined;
    let live = true;
    setTree(undefined);
    setPicked(undefined);
    templateTree(scope).then(
      (data) => live && setTree(data),
      () => live && setTree([]),
    );
    return () => {
      live = false;
    };
  }, [scope, reload]);

  const data = useMemo(() => treeData(tree ?? []), [tree]);
  const apply = useCallback(
    (mode: 'replace' | 'append', tpl = picked) => {
      if (tpl && editable) onApply(tpl, mode);
    },
    [picked, editable, onApply],
  );

  if (!scope) return <Empty description={t('entity.page.forbidden')} />;
  return (
    <Flex vertical gap={8} data-testid="report-templates" style={{ height: '100%' }}>
      <Flex justify="space-between" align="center" gap={8} wrap>
        <Segmented
          size="small"
          value={scope}
          onChange={(v) => setScope(v as TemplateScope)}
          options={scopes.map((s) => ({ value: s, label: <span data-testid={`template-scope-${s}`}>{t(`code.templateScope.${s}`)}</span> }))}
        />
        {can(map, 'privateTemplate:add') && (
          <Button size="small" onClick={() => setSaving(true)} disabled={!current.see.trim() && !current.diagnosis.trim()} data-testid="template-save-as">
            {t('entity.report.detail.template.saveAs')}
          </Button>
        )}
      </Flex>
      <div style={{ flex: '1 1 40%', minHeight: 120, overflow: 'auto' }}>
        {tree === undefined ? (
          <Spin style={{ display: 'block', margin: '24px auto' }} />
        ) : data.nodes.length ? (
          <Tree
            key={`${scope}:${reload}`}
            treeData={data.nodes}
            defaultExpandedKeys={data.classKeys}
            selectedKeys={picked ? [`t:${picked.id}`] : []}
            onSelect={(keys) => setPicked(data.byKey.get(String(keys[0])))}
            onDoubleClick={(_, node) => apply('append', data.byKey.get(String(node.key)))}
            blockNode
          />
        ) : (
          <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('entity.report.detail.template.empty')} />
        )}
      </div>
      {picked && (
        <Card
          size="small"
          title={picked.templateName}
          data-testid="template-preview"
          extra={
            <Flex gap={4}>
              <Button size="small" disabled={!editable} onClick={() => apply('replace')} data-testid="template-replace">
                {t('entity.report.detail.template.replace')}
              </Button>
              <Button size="small" type="primary" disabled={!editable} onClick={() => apply('append')} data-testid="template-append">
                {t('entity.report.detail.template.append')}
              </Button>
            </Flex>
          }
          styles={{ body: { maxHeight: 260, overflow: 'auto' } }}
        >
          <Typography.Text type="secondary">{t('entity.template.field.see')}</Typography.Text>
          <Typography.Paragraph style={{ whiteSpace: 'pre-wrap' }}>{picked.see || '-'}</Typography.Paragraph>
          <Typography.Text type="secondary">{t('entity.template.field.diagnosis')}</Typography.Text>
          <Typography.Paragraph style={{ whiteSpace: 'pre-wrap', marginBottom: 0 }}>{picked.diagnosis || '-'}</Typography.Paragraph>
        </Card>
      )}
      {saving && (
        <SaveTemplateDialog
          current={current}
          defaultClass={defaultClass}
          onClose={(saved) => {
            setSaving(false);
            if (!saved) return;
            message.success(t('entity.action.saved'));
            if (scope === 'private') setReload((r) => r + 1);
            else setScope('private');
          }}
        />
      )}
    </Flex>
  );
}

function SaveTemplateDialog({ current, defaultClass, onClose }: { current: TemplatePanelProps['current']; defaultClass?: string; onClose(saved: boolean): void }) {
  const { t } = useTranslate();
  const form = useMemo(() => createForm({ initialValues: defaultClass ? { className1: defaultClass } : {} }), [defaultClass]);
  const [busy, setBusy] = useState(false);
  const onOk = async () => {
    setBusy(true);
    try {
      await form.submit(async (values: { className1: string; className2: string; templateName: string }) => {
        try {
          await saveTemplate({
            scope: 'private',
            className1: values.className1,
            className2: values.className2,
            templateName: values.templateName,
            ...(current.see.trim() ? { see: current.see } : {}),
            ...(current.diagnosis.trim() ? { diagnosis: current.diagnosis } : {}),
          });
        } catch (e) {
          showServerError(form, e);
          throw e;
        }
      });
      onClose(true);
    } catch {
      // Invalid fields show their messages; a refusal was shown by the request wrapper.
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal open title={t('entity.report.detail.template.saveAs')} onOk={onOk} confirmLoading={busy} onCancel={() => onClose(false)} destroyOnClose maskClosable={false} okButtonProps={{ 'data-testid': 'template-save-ok' } as never}>
      <div data-testid="template-save-form">
        <SchemaForm view={SAVE_VIEW} form={form} mode="create" />
      </div>
    </Modal>
  );
}
