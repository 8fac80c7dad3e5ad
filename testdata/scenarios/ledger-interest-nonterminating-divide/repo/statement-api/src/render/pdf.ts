import PDFDocument from 'pdfkit';
import { Statement } from '../model';

const FONT = process.env.STATEMENT_FONT ?? 'Inter-Regular';

export function renderStatement(st: Statement): PDFKit.PDFDocument {
  const doc = new PDFDocument({ size: 'A4', margin: 48 });
  doc.font(FONT).fontSize(10);
  doc.text(`Statement ${st.period}`, { align: 'right' });
  for (const line of st.lines) {
    doc.text(`${line.date}  ${line.description.padEnd(40)} ${line.amount}`);
  }
  return doc;
}
