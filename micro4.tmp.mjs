import { readFileSync } from 'node:fs';
const { htmlToMarkdown } = await import('/work/main/dist/mirror/convert.js');
const data = JSON.parse(readFileSync('/tmp/prof/list.json', 'utf8')).data.slice(0, 5000);
let c = process.cpuUsage(); for (const e of data) htmlToMarkdown(e.content); console.log("first pass cpu", (process.cpuUsage(c).user/1000).toFixed(0));
c = process.cpuUsage(); for (const e of data) htmlToMarkdown(e.content); console.log("second pass cpu", (process.cpuUsage(c).user/1000).toFixed(0));
