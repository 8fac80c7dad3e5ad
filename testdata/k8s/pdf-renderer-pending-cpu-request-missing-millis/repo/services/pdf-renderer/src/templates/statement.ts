import { money, formatDate } from "../format";
import type { RenderJob } from "../worker";
import { loadStatement } from "../data";

// Monthly account statement: one page per 40 lines, VAT summary at the end.
export async function render(job: RenderJob): Promise<string> {
  const st = await loadStatement(job.tenantId, job.documentId);
  const rows = st.lines
    .map(
      (l) => `<tr><td>${formatDate(l.date)}</td><td>${l.description}</td>
        <td class="num">${money(l.net, st.currency)}</td>
        <td class="num">${l.vatRate}%</td>
        <td class="num">${money(l.vat, st.currency)}</td>
        <td class="num">${money(l.net + l.vat, st.currency)}</td></tr>`,
    )
    .join("");
  const vatByRate = new Map<number, number>();
  for (const l of st.lines) {
    vatByRate.set(l.vatRate, (vatByRate.get(l.vatRate) ?? 0) + l.vat);
  }
  const vatRows = [...vatByRate.entries()]
    .sort(([a], [b]) => a - b)
    .map(([rate, vat]) => `<tr><td>VAT ${rate}%</td><td class="num">${money(vat, st.currency)}</td></tr>`)
    .join("");
  return `<!doctype html><html><head><link rel="stylesheet" href="file:///app/assets/statement.css"></head>
  <body><h1>Statement ${st.period}</h1><p>${st.customer.name}</p>
  <table class="lines"><thead><tr><th>Date</th><th>Description</th><th>Net</th><th>VAT</th><th>VAT amount</th><th>Total</th></tr></thead>
  <tbody>${rows}</tbody></table>
  <table class="vat-summary">${vatRows}</table>
  <p class="total">Balance due: ${money(st.balance, st.currency)}</p></body></html>`;
}
