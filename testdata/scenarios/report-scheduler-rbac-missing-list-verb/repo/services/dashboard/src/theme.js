module.exports = { palette: ['#0b3954', '#087e8b', '#bfd7ea', '#ff5a5f'], radius: 6 };
