/** A titled group of a form (a view's form.groups entry). Layout only: no value. */
import { Card } from 'antd';
import type { ReactNode } from 'react';

export function Section({ title, children, ...rest }: { title?: ReactNode; children?: ReactNode; 'data-testid'?: string }) {
  return (
    <Card size="small" title={title} style={{ marginBottom: 16 }} styles={{ body: { paddingBottom: 0 } }} data-testid={rest['data-testid']}>
      {children}
    </Card>
  );
}

export default Section;
