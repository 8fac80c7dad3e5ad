export function Footer() {
  return (
    <footer className="site-footer">
      <p>Free shipping on orders over €40 — and on everything in the Winter Drop.</p>
      <p>© 2026 Velvetline</p>
    </footer>
  );
}
