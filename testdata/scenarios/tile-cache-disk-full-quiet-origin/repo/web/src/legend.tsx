export const Legend = () => (
  <span>km</span>
)
