/**
 * A view with `form.steps` as a wizard (./toSteps): one step per group, Next validates
 * the step shown before moving on (Formily validates visible fields only), Submit
 * validates every step and stops on the first with a problem. What is typed is kept as
 * the user's draft on the server (/api/ucenter/v1/draft/<view>) after each step and on
 * "save draft", and the wizard opens again at the step and values of the draft.
 * `onSubmit` receives the values; the draft is dropped once it resolves.
 */
import { FormStep } from '@formily/antd-v5';
import { createForm, type Form } from '@formily/core';
import { observer } from '@formily/react';
import { App, Button, Space, Spin } from 'antd';
import { useEffect, useMemo, useState } from 'react';
import { request } from '../services/request';
import { initialValues } from './formData';
import { SchemaForm } from './SchemaForm';
import type { View } from '../shared/schema/types';
import { useTranslate } from './useTranslate';
import { viewName } from '../shared/schema/views';

interface Draft {
  step: number;
  data: Record<string, unknown>;
}

export const draftPath = (view: View) => `/api/ucenter/v1/draft/${viewName(view)}`;

type FormStepModel = ReturnType<typeof FormStep.createFormStep>;

/** Resolves after the next frame is painted (React has committed what was set before). */
const painted = () => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));

/** Plain JSON of the form's values (Formily's are observable proxies). */
const plain = (form: Form) => JSON.parse(JSON.stringify(form.values ?? {})) as Record<string, unknown>;

export interface WizardProps {
  view: View;
  onSubmit(values: Record<string, unknown>): Promise<void>;
}

/** A field still uploading files (FileUpload marks it loading): nothing submits until it ended. */
const uploading = (form: Form) => form.query('*').map((f) => f).some((f) => (f as { loading?: boolean }).loading === true);

const Buttons = observer(
  ({ form, formStep, busy, onNext, onBack, onDraft, onSubmit }: { form: Form; formStep: FormStepModel; busy: boolean; onNext(): void; onBack(): void; onDraft(): void; onSubmit(): void }) => {
    const { t } = useTranslate();
    const waiting = uploading(form);
    return (
      <Space style={{ marginTop: 16 }}>
        <Button disabled={!formStep.allowBack || busy} onClick={onBack} data-testid="wizard-back">
          {t('entity.wizard.back')}
        </Button>
        <Button onClick={onDraft} disabled={busy} data-testid="wizard-draft">
          {t('entity.wizard.saveDraft')}
        </Button>
        {formStep.allowNext ? (
          <Button type="primary" loading={busy} onClick={onNext} data-testid="wizard-next">
            {t('entity.wizard.next')}
          </Button>
        ) : (
          <Button type="primary" loading={busy} disabled={waiting} onClick={onSubmit} data-testid="wizard-submit" data-uploading={waiting || undefined}>
            {t('entity.wizard.submit')}
          </Button>
        )}
      </Space>
    );
  },
);

export function Wizard({ view, onSubmit }: WizardProps) {
  const { t } = useTranslate();
  const { message } = App.useApp();
  const form = useMemo(() => createForm({ initialValues: initialValues(view) }), [view]);
  const formStep = useMemo(() => FormStep.createFormStep(), [view]);
  const scope = useMemo(() => ({ formStep }), [formStep]);
  const [draft, setDraft] = useState<Draft | null | undefined>(undefined);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    request<Draft | null>(draftPath(view), { quiet: true })
      .then((d) => live && setDraft(d))
      .catch(() => live && setDraft(null));
    return () => {
      live = false;
    };
  }, [view]);

  // Once the form is rendered (FormStep connected to its panes), resume the draft.
  useEffect(() => {
    if (!draft) return;
    form.setValues(draft.data);
    formStep.setCurrent(Math.min(draft.step, Math.max(0, (view.form?.groups.length ?? 1) - 1)));
  }, [draft, form, formStep, view]);

  const saveDraft = (step: number) => request(draftPath(view), { body: { step, data: plain(form) }, quiet: true });

  const next = async () => {
    setBusy(true);
    try {
      const before = formStep.current;
      await formStep.next();
      // next() moves only when the step shown is valid.
      if (formStep.current !== before) await saveDraft(formStep.current).catch(() => undefined);
    } finally {
      setBusy(false);
    }
  };

  const submit = async () => {
    if (uploading(form)) return;
    setBusy(true);
    try {
      // Every step, in order: the first with a problem is shown with its messages.
      const steps = view.form?.groups.length ?? 0;
      for (let i = 0; i < steps; i++) {
        formStep.setCurrent(i);
        // FormStep mounts only the pane shown: let React mount this one's fields (a
        // resumed draft may never have shown it) before validating them.
        await painted();
        const valid = await form.validate().then(
          () => true,
          () => false,
        );
        if (!valid) return;
      }
      await onSubmit(plain(form));
      await request(`${draftPath(view)}/delete`, { method: 'POST', quiet: true }).catch(() => undefined);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div data-testid="wizard" data-view={viewName(view)}>
      <Spin spinning={draft === undefined}>
        <SchemaForm view={view} form={form} mode="create" scope={scope} />
      </Spin>
      <Buttons
        formStep={formStep}
        form={form}
        busy={busy}
        onBack={() => formStep.back()}
        onNext={() => void next()}
        onSubmit={() => void submit()}
        onDraft={() =>
          void saveDraft(formStep.current)
            .then(() => message.success(t('entity.wizard.draftSaved')))
            .catch(() => undefined)
        }
      />
    </div>
  );
}

export default Wizard;
