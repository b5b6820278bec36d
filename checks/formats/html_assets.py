"""The HTML report's inline stylesheet and script (checks/formats/html.py puts both into the page).

Both are written here by hand, use nothing from outside the page (system fonts, no images, no
network) and are small. Without the script every step of every trace is shown one under the
other (a printable page); with it each viewer shows one step behind its controls.

>>> "http" in CSS + JS
False
"""

CSS = """
:root{--bg:#f7f5f0;--fg:#1d1c1a;--mut:#66625a;--line:#d8d3c7;--chg:#fff0a0;--chgb:#d9a800;--dif:#ffd9d6;
--difb:#c0392b;--omni:#6a3fb5;--ok:#1e7a3c;--bad:#b3261e;--unk:#8a6500;--bnd:#285f9e}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:var(--fg);
background:var(--bg)}
header.top{position:sticky;top:0;z-index:5;display:flex;flex-wrap:wrap;gap:.4em 1.5em;align-items:center;
justify-content:space-between;padding:.5em 1em;background:#2b2722;color:#f6f1e6}
body.omni-on header.top{background:#4a2a80}
header.top h1{font-size:1.15em;margin:0}
.omnitoggle{cursor:pointer;user-select:none}
.omnitoggle input{vertical-align:middle;width:1.1em;height:1.1em}
.omnibanner{display:none;font-weight:600;background:#fff;color:var(--omni);border-radius:3px;padding:0 .5em}
body.omni-on .omnibanner{display:inline}
main{padding:0 1.2em 4em;max-width:1500px;margin:auto}
h2{margin:1.6em 0 .4em;border-bottom:2px solid var(--line);font-size:1.2em}
h3{margin:.2em 0;font-size:1.05em}
p.sub{margin:.1em 0 .4em;color:var(--mut)}
table{border-collapse:collapse;background:#fff}
td,th{border:1px solid var(--line);padding:2px 7px;text-align:left;vertical-align:top}
th{background:#efebe2;font-weight:600}
.verdicts td.detail{max-width:60em}
.v{display:inline-block;font-weight:600;padding:0 .45em;border-radius:3px;color:#fff;background:var(--mut)}
.v-holds,.v-proved,.v-caught,.v-same{background:var(--ok)}
.v-violated,.v-missed,.v-differ{background:var(--bad)}
.v-unknown,.v-inconclusive,.v-error{background:var(--unk)}
.v-bounded{background:var(--bnd)}
.scroll{overflow-x:auto}table.sweep td.v{display:table-cell;text-align:center;padding:2px 4px}
table.sweep th.mx{vertical-align:bottom}table.sweep th.mx span{writing-mode:vertical-rl;transform:rotate(180deg)}
tr.differs td{background:var(--dif)}
.toc a{margin-right:1em}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.5em 0}
dl.facts dt{color:var(--mut)} dl.facts dd{margin:0}
.viewer{border:1px solid var(--line);border-radius:6px;background:#fff;margin:1em 0;padding:.6em 1em}
.viewer:focus{outline:2px solid #4a7bd0;outline-offset:2px}
.ctl{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.3em 0 .6em}
.ctl button{font:inherit;padding:.15em .7em;border:1px solid #8d867a;border-radius:4px;background:#f4f1ea;cursor:pointer}
.ctl button:disabled{opacity:.4;cursor:default}
.ctl .pos{min-width:8em;text-align:center;font-weight:600}
.ctl .slider{flex:1;min-width:8em;max-width:24em}
ol.steps{list-style:none;margin:0;padding:0}
html:not(.js) .step{border-top:1px dashed var(--line);padding-top:.5em;margin-top:.5em}
html.js .step{display:none} html.js .step.on{display:block}
html:not(.js) .ctl{display:none}
.lanes{display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));gap:1em}
.lane{min-width:0;overflow-x:auto}
.lanes:has(.lane+.lane) .board{font-size:.88em}
.lt{font-weight:700;font-size:1.05em;border-bottom:1px solid var(--line);margin-bottom:.3em}
.head{margin-bottom:.4em}
.head .no{display:inline-block;min-width:1.8em;text-align:center;font-weight:700;background:#2b2722;color:#fff;
border-radius:3px;margin-right:.3em}
.head .words{font-size:1.05em}
.head.ended{color:var(--mut);font-style:italic}
.badge{display:inline-block;background:var(--bad);color:#fff;border-radius:3px;padding:0 .45em;font-weight:600}
.rule{color:var(--mut);font-size:.92em}
.ids{font-weight:600;color:#5a4a1e}
.changed{font-size:.9em;color:var(--mut)}
.ph{font-weight:700}
.board{border-top:1px solid var(--line);padding-top:.4em}
.cap{font-weight:600;margin-bottom:.3em}
.regions{display:flex;flex-wrap:wrap;gap:.5em;margin-bottom:.5em}
.region{border:2px solid #c59b4e;border-radius:10px;padding:.3em .6em;min-width:10em;background:#fcf3de}
.region.desert{border-style:dashed;border-color:#d6c08f;background:#f6ead0}
.region .rn{font-weight:700}
.region .note{font-size:.85em;color:#7a4b00}
.region .empty{color:var(--mut);font-size:.85em}
.piece{display:inline-block;border-radius:10px;padding:0 .55em;margin:2px 2px 0 0;color:#fff}
.sw{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:.35em;vertical-align:-.05em}
.f0{background:#7a2f8c}.f1{background:#2763a8}.f2{background:#2e7d50}.f3{background:#a86a10}
.f4{background:#8c2f2f}.f5{background:#3c6e71}.f6{background:#6b5b2e}.f7{background:#4d4d8f}.f9{background:#666}
.toks{margin-top:.2em}
.tok{display:inline-block;border:2px solid #2b2722;border-radius:12px;padding:0 .5em;margin:2px 2px 0 0;
background:#fff}
.tok.alert{border-color:var(--bad);background:#fff0ee}
.tok.alert em{color:var(--bad);font-style:normal;font-weight:600}
table.factions{margin-bottom:.5em}
table.factions th{white-space:nowrap}
.panels{display:grid;grid-template-columns:repeat(auto-fit,minmax(210px,1fr));gap:.5em}
.panel{border:1px solid var(--line);border-radius:4px;padding:.2em .5em;background:#fdfcf9}
.panel h4{margin:.1em 0 .2em;font-size:.95em}
.panel ul{margin:0;padding-left:1em}
.it .ik{color:var(--mut)} .it .ik:after{content:":"} .it .iv{font-weight:600}
.chg:not(.piece){background:var(--chg)!important}
.chg{box-shadow:0 0 0 2px var(--chgb) inset}
.piece.chg,.tok.chg{box-shadow:0 0 0 3px var(--chgb)}
.region.chg{box-shadow:0 0 0 3px var(--chgb)}
.dif:not(.piece){background:var(--dif)!important}
.dif{box-shadow:0 0 0 2px var(--difb) inset}
.piece.dif,.tok.dif{box-shadow:0 0 0 3px var(--difb)}
body:not(.omni-on) .omni{display:none!important}
.omni{border:1px dashed var(--omni);color:var(--omni);background:#f3edfc;border-radius:3px;padding:0 .25em}
.hid{display:inline-block;font-size:.72em;text-transform:uppercase;letter-spacing:.04em;background:var(--omni);
color:#fff;border-radius:2px;padding:0 .3em;margin-right:.2em;vertical-align:.1em}
th .hid,td .hid{margin-left:.2em}
.omni.raw{display:block;font-size:.8em;margin-top:.2em}
.seen{border:2px solid var(--difb);background:var(--dif);border-radius:4px;padding:.3em .6em;margin:.4em 0}
.seen pre{margin:.2em 0;white-space:pre-wrap}
details>summary{cursor:pointer;font-weight:600}
p.cmd{font-size:.88em;color:var(--mut);margin:.2em 0 1em}
p.cmd code.copy{user-select:all;background:#fff;border:1px solid var(--line);border-radius:3px;padding:0 .3em;
color:var(--fg);word-break:break-all}
"""

JS = """
(function(){
var doc=document, last=null;
doc.documentElement.classList.add('js');
function steps(v){return v.querySelectorAll('.steps>.step');}
function at(v){return +v.getAttribute('data-at')||0;}
function go(v,i){
  var st=steps(v), n=st.length-1;
  i=Math.max(0,Math.min(n,i));
  for(var j=0;j<st.length;j++){st[j].classList.toggle('on',j===i);}
  v.setAttribute('data-at',i);
  v.querySelector('.pos').textContent='step '+i+' of '+n;
  v.querySelector('.prev').disabled=v.querySelector('.first').disabled=(i===0);
  v.querySelector('.next').disabled=v.querySelector('.last').disabled=(i===n);
  v.querySelector('.slider').value=i;
}
function onScreen(){
  var vs=doc.querySelectorAll('.viewer');
  for(var i=0;i<vs.length;i++){var r=vs[i].getBoundingClientRect();
    if(r.bottom>60&&r.top<window.innerHeight&&vs[i].offsetParent!==null){return vs[i];}}
  return null;
}
Array.prototype.forEach.call(doc.querySelectorAll('.viewer'),function(v){
  go(v,+v.getAttribute('data-start')||0);
  v.querySelector('.first').addEventListener('click',function(){go(v,0);});
  v.querySelector('.prev').addEventListener('click',function(){go(v,at(v)-1);});
  v.querySelector('.next').addEventListener('click',function(){go(v,at(v)+1);});
  v.querySelector('.last').addEventListener('click',function(){go(v,steps(v).length-1);});
  v.querySelector('.slider').addEventListener('input',function(){go(v,+this.value);});
  v.addEventListener('focusin',function(){last=v;});
  v.addEventListener('mousedown',function(){last=v;});
});
doc.addEventListener('keydown',function(ev){
  if(ev.altKey||ev.ctrlKey||ev.metaKey){return;}
  var t=ev.target;
  if(t&&(t.tagName==='TEXTAREA'||t.tagName==='SELECT'||(t.tagName==='INPUT'&&t.type!=='checkbox'))){return;}
  var v=(t&&t.closest&&t.closest('.viewer'))||(last&&last.offsetParent!==null?last:null)||onScreen();
  if(!v){return;}
  var d={ArrowRight:1,ArrowLeft:-1}[ev.key];
  if(d){go(v,at(v)+d);}
  else if(ev.key==='Home'){go(v,0);}
  else if(ev.key==='End'){go(v,steps(v).length-1);}
  else{return;}
  last=v; ev.preventDefault();
});
var box=doc.getElementById('omni');
function omni(){doc.body.classList.toggle('omni-on',box.checked);}
box.addEventListener('change',omni); omni();
})();
"""
