// The IPC floor's child process: sends every message straight back to its
// parent. No isolate, no pool, no parsing beyond Node's own: what remains of
// a call is the process boundary itself.
process.on("message", (message) => process.send(message));
