module.exports = { default: 'Source Serif 4', fallback: ['Noto Serif', 'DejaVu Serif'] };
