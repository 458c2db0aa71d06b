/**
 * The A4 sheet of one printed report, drawn from ./sheet's model: the heading, the
 * header cells in the layout's columns, the body paragraphs, the footer cells (a
 * signing doctor's picture in place of the typed name) and the footnote. The same
 * element is the on-screen preview and, inside PrintRoot, what the printer gets.
 */
import type { CSSProperties, ReactNode } from 'react';
import { createPortal } from 'react-dom';
import type { PrintField, SheetCell, SheetModel } from '../../shared/printSheet';
import styles from './sheet.less';

/** Items whose text runs long: in a block of cells they take the whole row. */
const WIDE = new Set<PrintField>(['see', 'diagnosis', 'notes']);

function Cells({ cells, columns, className }: { cells: SheetCell[]; columns: number; className: string }) {
  if (!cells.length) return null;
  return (
    <div className={`${styles.cells} ${className}`} style={{ gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` }}>
      {cells.map((c) => (
        <div key={c.field} className={WIDE.has(c.field) ? `${styles.cell} ${styles.wide}` : styles.cell} data-testid={`sheet-${c.field}`}>
          <span className={styles.label}>{c.label}</span>
          {c.image ? <img className={styles.signature} src={c.image} alt={c.text} data-testid={`sheet-signature-${c.field}`} /> : <span className={styles.value}>{c.text}</span>}
        </div>
      ))}
    </div>
  );
}

export function ReportSheet({ model, zoom, testId = 'report-sheet' }: { model: SheetModel; zoom?: number; testId?: string }) {
  const style: CSSProperties = { fontSize: `${model.fontSize}pt`, ...(zoom && zoom !== 1 ? { zoom } : {}) };
  return (
    <div className={styles.sheet} style={style} data-testid={testId}>
      <div className={styles.heading}>
        <div className={styles.hospital} data-testid="sheet-hospital">
          {model.hospitalName}
        </div>
        <div className={styles.title} data-testid="sheet-title">
          {model.title}
        </div>
        {model.headerText && <div className={styles.subtitle}>{model.headerText}</div>}
      </div>
      <Cells cells={model.header} columns={model.columns} className={styles.header} />
      <div className={styles.body}>
        {model.body.map((c) => (
          <div key={c.field} className={styles.section} data-testid={`sheet-${c.field}`}>
            <div className={styles.sectionTitle}>{c.label}</div>
            <div className={styles.paragraph}>{c.text}</div>
          </div>
        ))}
      </div>
      <Cells cells={model.footer} columns={model.columns} className={styles.footer} />
      {model.footerText && <div className={styles.footnote}>{model.footerText}</div>}
    </div>
  );
}

/** Sheets on the grey desk of a dialog or panel. */
export function SheetDesk({ children }: { children: ReactNode }) {
  return <div className={styles.desk}>{children}</div>;
}

/** What window.print() prints: the sheets as a child of body, the rest of the page hidden by the print CSS. */
export function PrintRoot({ children }: { children: ReactNode }) {
  return createPortal(<div className="rc-print-root">{children}</div>, document.body);
}
