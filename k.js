try {
  Deno.kill(22395, "SIGKILL");
  console.log("killed other");
} catch (e) {
  console.log(e.name, e.message);
}
try {
  Deno.kill(Deno.pid, "SIGCONT");
  console.log("self ok");
} catch (e) {
  console.log(e.name, e.message);
}
