/**
 * The edit of a revoked application (workflow action `edit`, config/workflows/
 * consultation.json): the meeting and patient details, the fields of the action's form
 * schema (entities/consultationApply.json#/definitions/edit), rendered as the application wizard renders
 * them (its view, so one set of titles, controls and limits), filled from the
 * consultation. Sending it edits and sends it back to review in one step; the server's
 * refusals land on their fields.
 */
import { createForm } from '@formily/core';
import { App, Modal } from 'antd';
import { useMemo } from 'react';
import { SchemaForm } from '../schema/SchemaForm';
import { toPayload } from '../schema/formData';
import { useBusy } from '../schema/useBusy';
import { showServerError } from '../schema/useEntityForm';
import { useTranslate } from '../schema/useTranslate';
import { postConsultationActionByAction, type PostConsultationActionByActionBody } from '../services/generated/consult';
import { schemaAt } from '../shared/schema/schemas';
import type { View } from '../shared/schema/types';
import { getView } from '../shared/schema/views';
import { actionForm, type ConsultationDetail } from './api';

/** The wizard's view cut to the action's form: its fields, in two columns, one section. */
function editView(formSchema: string): { view: View; fields: string[] } {
  const apply = getView('consultationApply')!;
  const fields = Object.keys(schemaAt(formSchema).properties ?? {});
  return { view: { ...apply, form: { mode: 'modal', columns: 2, groups: [{ key: 'consultEdit', fields }] } } as View, fields };
}

export function EditApplicationDialog({ data, onClose }: { data: ConsultationDetail; onClose(changed: boolean): void }) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const { view, fields } = useMemo(() => editView(actionForm('edit')!), []);
  const form = useMemo(() => {
    const values = data as unknown as Record<string, unknown>;
    return createForm({ initialValues: Object.fromEntries(fields.filter((f) => values[f] !== undefined && values[f] !== null).map((f) => [f, values[f]])) });
  }, [data, fields]);
  const [send, busy] = useBusy(async () => {
    // The server's last refusal (on a field) is judged again with what is sent now.
    form.setFieldState('*', (state) => {
      state.selfErrors = [];
    });
    await form.submit(async (values: Record<string, unknown>) => {
      try {
        // The form's values as the view sends them; the server validates them against the entity the workflow names.
        const changes = toPayload(view, values) as PostConsultationActionByActionBody['form'];
        await postConsultationActionByAction('edit', { id: data.id, version: data.version, form: changes });
      } catch (e) {
        showServerError(form, e);
        throw e;
      }
    });
    message.success(t('entity.consultation.action.editDone'));
    onClose(true);
  });
  return (
    <Modal
      open
      width={880}
      title={t('entity.consultation.action.edit')}
      onCancel={() => onClose(false)}
      onOk={() => void send().catch(() => undefined)}
      okText={t('entity.consultation.action.editSubmit')}
      cancelText={t('common.cancel')}
      okButtonProps={{ 'data-testid': 'consult-edit-submit' } as Record<string, string>}
      confirmLoading={busy}
      destroyOnClose
      maskClosable={false}
    >
      <div data-testid="consult-edit-form">
        <SchemaForm view={view} form={form} mode="edit" />
      </div>
    </Modal>
  );
}
