"""The explorer's page: one HTML document, its stylesheet and its script, served by the explorer itself
(checks/formats/explorer_http.py), written by hand: no build step, no framework, nothing fetched from
anywhere else (the Content-Security-Policy forbids it).

The script keeps the path (action labels) and the position on it; every change asks the server for
the view at that position (`POST /api/view`) and puts the HTML fragments it answers into the page,
so what an observer sees is decided on the server, where the model is. The board's stylesheet is
the HTML report's (checks/formats/html_assets.py), so a board looks the same in both.

>>> f = files("default")
>>> sorted(f), "http" in f["/app.js"][1].decode() + f["/"][1].decode()
(['/', '/app.css', '/app.js'], False)
"""
from __future__ import annotations

from checks.formats.html_assets import CSS as REPORT_CSS
from checks.formats.html_board import e

CSS = REPORT_CSS + """
body{background:var(--bg)}
body.busy{cursor:progress}
header.top select{font:inherit;margin-left:.3em}
header.top label{white-space:nowrap}
.nav{display:flex;flex-wrap:wrap;gap:.5em;align-items:center;margin:.6em 0}
.nav button,.save button,.try-any button{font:inherit;padding:.15em .7em;border:1px solid #8d867a;border-radius:4px;
background:#f4f1ea;cursor:pointer}
.nav button:disabled{opacity:.4;cursor:default}
.nav .pos{font-weight:700;min-width:7em;text-align:center}
.fp{font-family:monospace;color:var(--mut)}
.seenmark{background:#e6f0ff;border:1px solid #4a7bd0;border-radius:3px;padding:0 .4em}
.cols{display:grid;grid-template-columns:minmax(0,3fr) minmax(330px,2fr);gap:1em}
@media (max-width:900px){.cols{grid-template-columns:1fr}}
.box{border:1px solid var(--line);border-radius:6px;background:#fff;padding:.4em .8em;margin-bottom:.8em}
.box h2{margin:.2em 0 .4em;font-size:1.05em;border:0}
.group h4{margin:.5em 0 .2em}
ul.choices,ul.refused,ul.props,ol.conj{list-style:none;margin:0;padding:0}
li.choice{margin:.25em 0;padding:.2em .3em;border-radius:4px}
li.choice.breaks{background:var(--dif)}
button.act{font:inherit;text-align:left;width:100%;border:1px solid #8d867a;border-radius:4px;background:#f8f6f0;
cursor:pointer;padding:.2em .5em}
button.act:hover{background:#fff6d0}
.meta{font-size:.85em;color:var(--mut)}
.mark{display:inline-block;border-radius:3px;padding:0 .35em;margin-left:.3em;font-size:.85em}
.mark.bad{background:var(--bad);color:#fff}.mark.good{background:var(--ok);color:#fff}
.mark.seen{background:#4a7bd0;color:#fff}
li.prop{padding:.1em .3em;border-left:4px solid var(--line);margin:.15em 0}
li.prop.ok{border-color:var(--ok)}li.prop.bad{border-color:var(--bad);background:var(--dif)}
li.prop.info{border-color:var(--unk)}li.prop.warn{border-color:var(--chgb);background:var(--chg)}
.pn{font-weight:600}.ps{color:var(--mut)}.pd{font-size:.85em;color:var(--mut)}
.kind h4{margin:.5em 0 .1em}.kind .n{color:var(--mut);font-weight:400}
ol.history{margin:0;padding-left:0;list-style:none;max-height:28em;overflow-y:auto}
ol.history li,ol.cmp li{cursor:pointer;padding:.1em .3em;border-radius:3px}
ol.history li:hover,ol.cmp li:hover{background:#f3efe4}
ol.history li.at{background:#fff0a0;font-weight:600}
ol.history .no,ol.cmp .no{display:inline-block;min-width:1.8em;text-align:center;background:#2b2722;color:#fff;
border-radius:3px;margin-right:.3em}
ol.cmp{list-style:none;padding:0;margin:0;max-height:20em;overflow-y:auto}
ol.cmp li.differs{background:var(--dif)}ol.cmp li.first{outline:2px solid var(--difb)}
ol.cmp li.here{font-weight:700}
.cw{font-size:.88em;color:var(--mut)}
ul.refused li{margin:.2em 0}
#refused{max-height:16em;overflow-y:auto}
#why:not(:empty){border:1px solid var(--line);border-radius:4px;padding:.2em .5em;margin:.4em 0;background:#fdfcf9}
button.try{font:inherit;font-size:.85em;border:1px solid #8d867a;border-radius:4px;background:#fff;cursor:pointer}
.why{font-size:.85em;color:var(--mut)}
ol.conj li{padding:.1em .3em;margin:.1em 0;border-left:4px solid var(--ok)}
ol.conj li.bad{border-color:var(--bad);background:var(--dif)}
table.fields td.sn{font-family:monospace}
.ghost{font-size:.75em;color:var(--mut);border:1px solid var(--line);border-radius:2px;padding:0 .2em}
.save label{display:block;margin:.25em 0}
.save input[type=text],.save select,.try-any input{font:inherit;max-width:100%}
#status{position:sticky;bottom:0;background:#2b2722;color:#f6f1e6;padding:.3em 1em;min-height:1.6em}
#status:empty{display:none}
#status.bad{background:var(--bad)}
.first-diff{font-weight:600;color:var(--bad)}
body:not([data-observer=designer]) .designer-only{display:none}
body.comparing #board-box{display:none}
.none{color:var(--mut)}
"""

JS = r"""
(function(){
'use strict';
var S={path:[],at:0,observer:'designer',compare:'',tried:null,busy:0,visited:{},meta:null};
function $(id){return document.getElementById(id);}
function api(route,body){
  var opt=body===undefined?{method:'GET'}:{method:'POST',headers:{'Content-Type':'application/json'},
    body:JSON.stringify(body)};
  return fetch(route,opt).then(function(r){return r.json().then(function(d){
    if(!r.ok){throw new Error(d.error||('HTTP '+r.status));} return d;});});
}
function status(msg,bad){var s=$('status');s.textContent=msg;s.className=bad?'bad':'';}
function busy(d){S.busy+=d;document.body.classList.toggle('busy',S.busy>0);
  document.body.setAttribute('data-busy',String(S.busy));}
function work(p){busy(1);return p.catch(function(err){status(err.message,true);}).then(function(){busy(-1);});}
function here(){return S.path.slice(0,S.at);}
function show(v){
  $('board').innerHTML=v.board;$('fields').innerHTML=v.fields;$('choices').innerHTML=v.choices;
  $('history').innerHTML=v.history;$('properties').innerHTML=v.properties||'';$('refused').innerHTML=v.refused||'';
  $('pos').textContent='step '+S.at+' of '+S.path.length;
  $('back').disabled=S.at===0;$('forward').disabled=S.at>=S.path.length;
  var fp=$('fp');fp.textContent='';
  if(v.fingerprint){
    var txt='state '+v.fingerprint;
    if(v.seen.length){txt+=' \u2014 the same state as step '+v.seen.join(', ');}
    else if(S.visited[v.fingerprint]&&S.visited[v.fingerprint]!==here().join('\n')){
      txt+=' \u2014 reached before by another path';}
    fp.textContent=txt;fp.classList.toggle('seenmark',txt.indexOf('\u2014')>=0);
    if(!S.visited[v.fingerprint]){S.visited[v.fingerprint]=here().join('\n');}
  }
  var sel=$('violates');sel.innerHTML='';
  (v.violated||[]).forEach(function(id){var o=document.createElement('option');o.value=id;o.textContent=id;sel.appendChild(o);});
  var h=$('history').querySelector('li.at');if(h&&h.scrollIntoView){h.scrollIntoView({block:'nearest'});}
}
function render(){
  document.body.setAttribute('data-observer',S.observer);
  var p=api('/api/view',{path:here(),observer:S.observer}).then(function(v){show(v);
    if(S.tried){return explain(S.tried);} $('why').innerHTML='';})
    .then(function(){document.body.classList.toggle('comparing',!!S.compare);
      if(S.compare){return compare();} $('compare-box').hidden=true;});
  return work(p);
}
function compare(){
  return api('/api/compare',{path:S.path,against:S.compare,at:S.at}).then(function(c){
    $('compare-box').hidden=false;$('cmp-against').textContent=c.against;
    $('cmp-first').textContent=c.first===null?'no difference along this path':
      'first difference at step '+c.first+': '+c.what;
    $('cmp-rows').innerHTML=c.rows;$('cmp-lanes').innerHTML=c.lanes;
    var li=$('cmp-rows').querySelector('[data-goto="'+S.at+'"]');if(li){li.classList.add('here');}
  });
}
function explain(label){
  return api('/api/explain',{path:here(),action:label}).then(function(x){
    $('why').innerHTML=x.html;S.tried=label;
    var o=$('expect-blocked');o.disabled=x.enabled;o.textContent=x.enabled?'blocked (the tried action is enabled)':
      'blocked: '+label+' is refused';
    if(!x.enabled){$('expect').value='blocked';}
  });
}
function step(label){
  if(S.path[S.at]===label){S.at+=1;}else{S.path=here().concat([label]);S.at=S.path.length;}
  S.tried=null;$('expect').value='reachable';return render();
}
function go(n){S.at=Math.max(0,Math.min(S.path.length,n));S.tried=null;return render();}
document.addEventListener('click',function(ev){
  var t=ev.target.closest('button.act,button.try,[data-goto]');if(!t){return;}
  if(t.matches('button.act[data-label]')){step(t.getAttribute('data-label'));}
  else if(t.matches('button.act[data-choice]')){
    work(api('/api/resolve',{path:here(),observer:S.observer,choice:t.getAttribute('data-choice')})
      .then(function(r){return step(r.label);}));}
  else if(t.matches('button.try')){work(explain(t.getAttribute('data-label')));}
  else{go(+t.getAttribute('data-goto'));}
});
$('back').addEventListener('click',function(){go(S.at-1);});
$('forward').addEventListener('click',function(){go(S.at+1);});
$('restart').addEventListener('click',function(){S.path=S.meta.start.slice();S.at=S.path.length;S.tried=S.meta.tried;render();});
$('observer').addEventListener('change',function(){S.observer=this.value;render();});
$('compare').addEventListener('change',function(){S.compare=this.value;render();});
$('try-btn').addEventListener('click',function(){var l=$('try-label').value.trim();if(l){work(explain(l));}});
document.addEventListener('keydown',function(ev){
  var t=ev.target;if(ev.altKey||ev.ctrlKey||ev.metaKey||(t&&/^(INPUT|SELECT|TEXTAREA)$/.test(t.tagName))){return;}
  if(ev.key==='ArrowLeft'){go(S.at-1);ev.preventDefault();}
  else if(ev.key==='ArrowRight'){go(S.at+1);ev.preventDefault();}
});
$('save-form').addEventListener('submit',function(ev){
  ev.preventDefault();
  var kind=$('expect').value,expect={};
  if(kind==='reachable'){expect.reachable=true;}
  else if(kind==='violates'){expect.violates=$('violates').value;}
  else if(kind==='values'){expect.values={};
    Array.prototype.forEach.call(document.querySelectorAll('input.pick:checked'),function(b){
      var v=b.getAttribute('data-value');expect.values[b.getAttribute('data-slot')]=/^-?\d+$/.test(v)?+v:v;});}
  else{expect.blocked=S.tried;}
  work(api('/api/save',{path:here(),name:$('name').value.trim(),expect:expect}).then(function(r){
    var ok=r.replay?(r.replay.ok?'rulecheck replay passes it':'rulecheck replay FAILS: '+r.replay.problem):'';
    $('saved').textContent='saved '+r.file+' under --out'+(ok?'; '+ok:'');
    status('saved '+r.file,r.replay&&!r.replay.ok);}));
});
function fill(sel,items){items.forEach(function(it){var o=document.createElement('option');
  o.value=it.key;o.textContent=it.title;sel.appendChild(o);});}
work(api('/api/meta').then(function(m){
  S.meta=m;$('proposal').textContent=m.proposal;$('description').textContent=m.description;
  $('note').textContent=m.note||'';
  fill($('observer'),m.observers);
  fill($('compare'),[{key:'',title:'(no comparison)'}].concat(m.compare.map(function(n){return {key:n,title:n};})));
  var dl=$('labels');m.actions.forEach(function(a){var o=document.createElement('option');o.value=a;dl.appendChild(o);});
  $('save-form').hidden=!m.can_save;$('no-save').hidden=m.can_save;
  S.path=m.start.slice();S.at=S.path.length;S.tried=m.tried;
  return render();
}));
})();
"""


def page(title: str) -> str:
    """The document: header (proposal, observer, comparison), navigation, board and side panels."""
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>rulecheck explore: {e(title)}</title><link rel="icon" href="data:,"><link rel="stylesheet" href="/app.css">
</head>
<body class="omni-on" data-observer="designer" data-busy="1">
<header class="top"><h1>rulecheck explore: <span id="proposal">{e(title)}</span></h1>
<label>observer <select id="observer" aria-label="observer"></select></label>
<label>compare with <select id="compare" aria-label="compare with"></select></label></header>
<main>
<p class="sub"><span id="description"></span> <span id="note"></span></p>
<div class="nav"><button id="restart" title="back to where the explorer started">start over</button>
<button id="back" title="previous step (left arrow)">\u2039 back</button><span class="pos" id="pos"></span>
<button id="forward" title="next step on the path (right arrow)">forward \u203a</button>
<span class="fp designer-only" id="fp"></span></div>
<section class="box" id="compare-box" hidden><h2>Compare with <span id="cmp-against"></span></h2>
<p class="first-diff" id="cmp-first"></p><div id="cmp-lanes"></div>
<details open><summary>the path under both</summary><div id="cmp-rows"></div></details></section>
<div class="cols"><div>
<section class="box" id="board-box"><h2>Board</h2><div id="board"></div></section>
<section class="box"><details id="fields-box"><summary>State fields this observer reads</summary>
<div id="fields"></div></details></section>
</div><div>
<section class="box" id="choices-box"><h2>Enabled actions</h2><div id="choices"></div></section>
<section class="box designer-only" id="refused-box"><h2>Refused here</h2>
<div class="try-any"><label>why not <input id="try-label" list="labels" size="34" placeholder="any action label">
</label> <button id="try-btn">explain</button></div><datalist id="labels"></datalist><div id="why"></div>
<details><summary>actions of this stage the rules refuse, and why</summary><div id="refused"></div></details></section>
<section class="box designer-only" id="properties-box"><h2>Properties here</h2><div id="properties"></div></section>
<section class="box" id="history-box"><h2>Path</h2><div id="history"></div></section>
<section class="box save" id="save-box"><h2>Save as scenario</h2>
<p id="no-save" hidden>Start the explorer with <code>--out DIR</code> to save scenarios.</p>
<form id="save-form"><label>name <input type="text" id="name" required
placeholder="letters, digits, - _ ~" size="28"></label>
<label>expectation <select id="expect"><option value="reachable">reachable: every step runs</option>
<option value="violates">violates a check (violated here)</option>
<option value="values">end values (the fields ticked)</option>
<option value="blocked" id="expect-blocked" disabled>blocked (try an action first)</option></select></label>
<label>check <select id="violates"></select></label>
<button type="submit" id="save">save</button> <span id="saved"></span></form></section>
</div></div></main>
<div id="status" role="status"></div>
<script src="/app.js"></script></body></html>
"""


def files(title: str) -> dict:
    """{path: (content type, bytes)}: what the server answers to GET besides the API."""
    return {"/": ("text/html; charset=utf-8", page(title).encode("utf-8")),
            "/app.css": ("text/css; charset=utf-8", CSS.encode("utf-8")),
            "/app.js": ("text/javascript; charset=utf-8", JS.encode("utf-8"))}
