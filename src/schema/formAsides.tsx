/**
 * The registry of form asides: live panels a view's form shows beside itself (view
 * `form.aside`), given the Formily form to follow as the user types: the print
 * layout's A4 preview. Features register theirs through their manifest (src/features).
 * Loaded on first use, so a form without one never loads it; a name registered twice
 * throws, as the other registries do.
 */
import type { Form } from '@formily/core';
import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import type { FormMode } from '../shared/schema/views';

export interface FormAsideProps {
  form: Form;
  mode: FormMode;
  /** The view's `form.aside.props`. */
  props: Record<string, unknown>;
}

export type FormAsideLoader = () => Promise<{ default: ComponentType<FormAsideProps> }>;

const loaders = new Map<string, FormAsideLoader>();
const loaded = new Map<string, LazyExoticComponent<ComponentType<FormAsideProps>>>();

export function registerFormAside(name: string, loader: FormAsideLoader): void {
  if (loaders.has(name)) throw new Error(`form aside ${name} registered twice`);
  loaders.set(name, loader);
}

export function formAsideNames(): string[] {
  return [...loaders.keys()];
}

export function FormAside({ component, form, mode, props }: FormAsideProps & { component: string }) {
  const loader = loaders.get(component);
  if (!loader) throw new Error(`no form aside ${component} in the registry`);
  let Aside = loaded.get(component);
  if (!Aside) {
    Aside = lazy(loader);
    loaded.set(component, Aside);
  }
  return (
    <Suspense fallback={null}>
      <Aside form={form} mode={mode} props={props} />
    </Suspense>
  );
}
