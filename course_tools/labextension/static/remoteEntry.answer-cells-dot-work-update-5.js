/* A JupyterLab extension of the course, written by hand (no build step). Four parts:
 *
 * 1. answer cells: it tells the kernel what a check cell's answer cell holds now.
 * Each check cell has the id of its checker ("check_04_snapshot") and the exercise cell
 * above it "answer_04_snapshot". When a check cell runs, this adds the answer cell's current
 * text to the execute request's metadata ("answerCellSource"); the kernel compares it with
 * the text the answer cell last ran with (exercises/checks/answer_cells.py). So a check never
 * judges an answer that was edited but not run again: it says so instead.
 *
 * 2. pictures: where Python cannot draw a graph (no Graphviz `dot`; the browser edition in a
 * browser without WebAssembly JSPI, such as Safari), engine/viz.py sends its DOT text under
 * DOT_MIME, and a renderer here lays it out with @viz-js/viz (Graphviz in WebAssembly,
 * loaded once, asynchronously) into an SVG in the page. Where viz.js cannot be found, it
 * shows the picture as text, and says why. A picture inside a widget's HTML (the backward
 * stepper's) comes as an element of class DOT_HTML_CLASS holding the DOT in data-dot: these
 * are found as they appear in the page and drawn the same way.
 *
 * 3. the learner's work in the browser edition (JupyterLite only: locally the work is files
 * on disk): File -> "Download my work" saves, as one zip, every notebook whose stored copy
 * differs from the course's original that the site ships (files/<path>), or that the site
 * does not have; File -> "Import my work" restores such a zip's notebooks at their paths,
 * and where the learner's own changed copy is there and differs, keeps both: the imported
 * one goes beside it with "-imported" in its name, and the dialog says so. The site's first
 * page links here with ?course-work=download or ?course-work=import. File -> "My progress"
 * is make progress's view, from the stored exercise notebooks.
 *
 * 4. while the browser edition's kernel starts, a line in the notebook's toolbar says so.
 *
 * 5. the course-update notice (JupyterLite only): the site's build writes each notebook's
 * version (course-versions.json: course_tools/notebook_files.cells_digest, as make workspace
 * records it), and the learner's stored copy carries the version it was made from (notebook
 * metadata COPY_KEY, written when the copy is first saved, with the course's path of the
 * notebook, so that a fresh copy under another name is known too). A notebook whose copy was
 * made from an older version says so when opened (a bar above it, in words from
 * static/messages.json) and offers the new version as a fresh copy beside the learner's
 * ("NAME (course update DATE).ipynb"); the learner's own file is never written by this part.
 *
 * JupyterLab loads an extension from a "container" with get() and init() (the format its
 * build tool writes); this file is one, by hand. The answer-cells plugin uses no JupyterLab
 * package; the renderer takes Lumino's Widget class from the share scope that JupyterLab
 * hands to init().
 */
var _JUPYTERLAB;
(function () {
  "use strict";

  var CHECK = "check_";
  var ANSWER = "answer_";
  var WRAPPED = "__autogradAnswerCellsWrapped";

  function answerSource(panel, cellId) {
    if (typeof cellId !== "string" || cellId.indexOf(CHECK) !== 0) {
      return undefined;
    }
    var wanted = ANSWER + cellId.slice(CHECK.length);
    var cells = panel.content && panel.content.model && panel.content.model.cells;
    if (!cells) {
      return undefined;
    }
    for (var i = 0; i < cells.length; i++) {
      var cell = cells.get(i);
      if (cell.id === wanted) {
        return cell.sharedModel.getSource();
      }
    }
    return undefined;
  }

  function wrapKernel(panel, kernel) {
    if (!kernel || kernel[WRAPPED]) {
      return;
    }
    var requestExecute = kernel.requestExecute.bind(kernel);
    kernel.requestExecute = function (content, disposeOnDone, metadata) {
      var source = answerSource(panel, metadata && metadata.cellId);
      if (source !== undefined) {
        metadata = Object.assign({}, metadata, { answerCellSource: source });
      }
      return requestExecute(content, disposeOnDone, metadata);
    };
    kernel[WRAPPED] = true;
  }

  function watch(widget) {
    var context = widget && widget.sessionContext;
    if (!context || !widget.content || !widget.content.model || widget[WRAPPED]) {
      return;
    }
    widget[WRAPPED] = true;
    var wrap = function () {
      wrapKernel(widget, context.session && context.session.kernel);
    };
    context.kernelChanged.connect(wrap);
    context.sessionChanged.connect(wrap);
    wrap();
    showKernelStart(widget);
    watchCourseVersion(widget);
  }

  function watchAll(app) {
    var widgets = app.shell.widgets("main");
    var next = widgets.next();
    while (next && !next.done) {  // a JavaScript iterator
      watch(next.value);
      next = widgets.next();
    }
  }

  var plugin = {
    id: "autograd-step-by-step:answer-cells",
    description: "Sends a check cell's answer cell text with the check, so stale answers are not judged.",
    autoStart: true,
    activate: function (app) {
      watchCourseVersion.app = app;
      watchWidgetPictures();
      addCourseWork(app);
      app.restored.then(function () {
        watchAll(app);
      });
      if (app.shell.currentChanged) {
        app.shell.currentChanged.connect(function (_, change) {
          watch(change.newValue);
        });
      }
      if (app.shell.layoutModified) {
        app.shell.layoutModified.connect(function () {
          watchAll(app);
        });
      }
    },
  };

  // ------------------------------------------------------------------ 2. pictures
  var DOT_MIME = "application/vnd.autograd-step-by-step.dot+json";  // engine/viz.py DOT_MIME
  var VIZ_FILE = "viz-3.31.0.js";  // engine/viz.py VIZ_JS; course_tools/site/build.py VIZ_FILE
  // Where viz.js may be, tried in turn: beside this file (an installed extension), then
  // beside pyodide.js in the site (extensions/<name>/static/ -> static/pyodide/).
  var HERE = (document.currentScript && document.currentScript.src) || document.baseURI;
  var VIZ_URLS = [new URL(VIZ_FILE, HERE).href,
                  new URL("../../../static/pyodide/" + VIZ_FILE, HERE).href];
  var sharing = null;  // JupyterLab's share scope (init), for @lumino/widgets
  var vizPromise = null;  // one @viz-js/viz instance for the page, made on first use

  function loadViz() {
    if (vizPromise === null) {
      vizPromise = VIZ_URLS.reduce(function (failed, url) {
        return failed.catch(function () {
          return import(url).then(function (module) { return module.instance(); });
        });
      }, Promise.reject(new Error("not tried")));
      vizPromise.catch(function () { vizPromise = null; });  // try again for the next one
    }
    return vizPromise;
  }

  // engine/viz.py _fit_width: a picture a little wider than the output area is scaled down
  // to it (never below min_scale, where its text would be too small to read).
  function fitWidth(svg, maxWidthPx, minScale) {
    var width = parseFloat(svg.getAttribute("width"));
    var height = parseFloat(svg.getAttribute("height"));
    if (!(width > 0 && height > 0)) {
      return;
    }
    var scale = maxWidthPx * 3 / 4 / width;  // Graphviz sizes are in pt: 1 pt = 4/3 px
    if (minScale <= scale && scale < 1) {
      svg.setAttribute("width", (width * scale).toFixed(2) + "pt");
      svg.setAttribute("height", (height * scale).toFixed(2) + "pt");
    }
  }

  function showText(node, text, why) {
    var pre = document.createElement("pre");
    pre.textContent = text + (why ? "\n(" + why + ")" : "");
    node.replaceChildren(pre);
  }

  function render(node, data) {
    return loadViz().then(function (viz) {
      var svg;
      try {
        svg = viz.renderSVGElement(data.dot);
      } catch (error) {
        showText(node, data.text, "Graphviz in the page failed: " + error.message);
        return;
      }
      fitWidth(svg, data.max_width_px, data.min_scale);
      node.replaceChildren(svg);
    }, function () {
      showText(node, data.text, "this page could not load Graphviz (" + VIZ_FILE + ")");
    });
  }

  // engine/viz.py DOT_HTML_CLASS: a picture in a widget's HTML, drawn where it appears.
  var DOT_HTML_CLASS = "autograd-dot-source";
  var DRAWN = "data-autograd-drawn";

  function drawWidgetPictures() {
    var found = document.querySelectorAll("." + DOT_HTML_CLASS + ":not([" + DRAWN + "])");
    for (var i = 0; i < found.length; i++) {
      var node = found[i];
      node.setAttribute(DRAWN, "");
      render(node, {
        dot: node.getAttribute("data-dot"),
        text: node.textContent,
        max_width_px: parseFloat(node.getAttribute("data-max-width-px")),
        min_scale: parseFloat(node.getAttribute("data-min-scale")),
      });
    }
  }

  function watchWidgetPictures() {
    var scheduled = false;
    new MutationObserver(function () {
      if (!scheduled) {  // one scan for a burst of changes
        scheduled = true;
        Promise.resolve().then(function () {
          scheduled = false;
          drawWidgetPictures();
        });
      }
    }).observe(document.body, { childList: true, subtree: true });
    drawWidgetPictures();
  }

  function rendererFactory(Widget) {
    class DotRenderer extends Widget {  // (Lumino's Widget is a class: extended as one)
      constructor() {
        super();
        this.addClass("jp-RenderedSVG");  // laid out as JupyterLab lays out an SVG output
        this.addClass("autograd-dot");
      }

      renderModel(model) {
        return render(this.node, model.data[DOT_MIME]);
      }
    }
    return {
      safe: true,  // it draws from text only: no script, no HTML from the output
      mimeTypes: [DOT_MIME],
      defaultRank: 40,  // before text/plain (120); SVG (80) is not in the same bundle
      createRenderer: function () { return new DotRenderer(); },
    };
  }

  function lumino() {
    var versions = (sharing && sharing["@lumino/widgets"]) || {};
    var newest = Object.keys(versions).sort(function (a, b) {
      return a.localeCompare(b, undefined, { numeric: true });
    }).pop();
    if (newest === undefined) {
      return Promise.reject(new Error("@lumino/widgets is not shared with extensions"));
    }
    return Promise.resolve(versions[newest].get()).then(function (factory) {
      return factory();
    });
  }

  function mimeExtension() {
    return lumino().then(function (widgets) {
      return {
        id: "autograd-step-by-step:dot-renderer",
        rendererFactory: rendererFactory(widgets.Widget),
        rank: 40,
        dataType: "json",
      };
    });
  }

  // ------------------------------------------------------------------ 3. the learner's work
  var DOWNLOAD = "autograd-step-by-step:download-my-work";
  var IMPORT = "autograd-step-by-step:import-my-work";
  var PROGRESS = "autograd-step-by-step:my-progress";
  var SITE_ROOT = new URL("../../../", HERE).href;  // extensions/<name>/static/ -> the site
  var IMPORTED = "-imported";

  // JupyterLite's page configuration has its kernels' settings; a local JupyterLab's has not.
  // The edition this site's JupyterLab serves: the Chinese site (build/site/zh-CN/) says
  // "courseLanguage": "zh-CN" in its jupyter-lite.json (course_tools/site/build.py); its
  // progress view reads the Chinese exercise notebooks, exercises/zh-CN/.
  function courseLanguage() {
    var script = document.getElementById("jupyter-config-data");
    try {
      return JSON.parse(script ? script.textContent : "{}").courseLanguage || "en";
    } catch (error) {
      return "en";
    }
  }

  function inJupyterLite() {
    var script = document.getElementById("jupyter-config-data");
    try {
      var config = JSON.parse(script ? script.textContent : "{}");
      return "litePluginSettings" in config || config.appName === "JupyterLite";
    } catch (error) {
      return false;
    }
  }

  // Notebooks as nbformat writes them (keys sorted, indent 1, final newline), so a zip's
  // notebook is the same bytes whenever the same notebook is written.
  function sortedKeys(value) {
    if (Array.isArray(value)) {
      return value.map(sortedKeys);
    }
    if (value && typeof value === "object") {
      var sorted = {};
      Object.keys(value).sort().forEach(function (key) { sorted[key] = sortedKeys(value[key]); });
      return sorted;
    }
    return value;
  }

  function notebookText(content) {
    return JSON.stringify(sortedKeys(content), null, 1) + "\n";
  }

  // Notebooks compared without the version their copy was made from (part 5): a copy the
  // learner only saved is still the course's own.
  function same(a, b) {  // JSON values, whatever their keys' order
    return JSON.stringify(sortedKeys(withoutCopyKey(a))) ===
      JSON.stringify(sortedKeys(withoutCopyKey(b)));
  }

  // notebook metadata: {"copied_from": version, "notebook": the course's path of it} (the
  // path, so that a fresh copy beside, under another name, is known as the same notebook)
  var COPY_KEY = "autograd_step_by_step";

  function withoutCopyKey(notebook) {
    if (!notebook || typeof notebook !== "object" || !notebook.metadata ||
        !(COPY_KEY in notebook.metadata)) {
      return notebook;
    }
    var metadata = Object.assign({}, notebook.metadata);
    delete metadata[COPY_KEY];
    return Object.assign({}, notebook, { metadata: metadata });
  }

  // The paths of the files the site ships, from its listings (api/contents/<dir>/all.json,
  // what JupyterLite's drive reads), so that no request is made for a file it has not.
  function siteFiles() {
    var paths = new Set();
    function walk(dir) {
      var url = SITE_ROOT + "api/contents/" + (dir ? encodePath(dir) + "/" : "") + "all.json";
      return fetch(url, { cache: "no-cache" }).then(function (response) {
        return response.ok ? response.json() : { content: [] };
      }).then(function (listing) {
        return Promise.all((listing.content || []).map(function (item) {
          paths.add(item.path);
          return item.type === "directory" ? walk(item.path) : null;
        }));
      });
    }
    return walk("").then(function () { return paths; });
  }

  function encodePath(path) {
    return path.split("/").map(encodeURIComponent).join("/");
  }

  // The course's original of a path, as the site ships it (null where the site has none).
  // The service worker answers only /api/ requests from the stored copies: files/ is the site's.
  function original(site, path) {
    if (!site.has(path)) {
      return Promise.resolve(null);
    }
    return fetch(SITE_ROOT + "files/" + encodePath(path), { cache: "no-cache" })
      .then(function (response) { return response.ok ? response.json() : null; });
  }

  function notebookPaths(contents, dir) {
    return contents.get(dir, { content: true }).then(function (listing) {
      var items = (listing.content || []).slice().sort(function (a, b) {
        return a.path < b.path ? -1 : 1;
      });
      return items.reduce(function (found, item) {
        return found.then(function (paths) {
          if (item.type === "directory") {
            return notebookPaths(contents, item.path).then(function (more) {
              return paths.concat(more);
            });
          }
          return item.type === "notebook" ? paths.concat([item.path]) : paths;
        });
      }, Promise.resolve([]));
    });
  }

  // The notebooks whose stored content differs from the site's original: [{path, text}].
  function changedNotebooks(contents) {
    return Promise.all([notebookPaths(contents, ""), siteFiles()]).then(function (found) {
      var paths = found[0], site = found[1];
      return Promise.all(paths.map(function (path) {
        return Promise.all([contents.get(path, { content: true }), original(site, path)])
          .then(function (both) {
            var mine = both[0].content;
            return both[1] !== null && same(mine, both[1]) ? null
              : { path: path, text: notebookText(mine) };
          });
      }));
    }).then(function (all) { return all.filter(Boolean); });
  }

  // A zip of stored (uncompressed) entries: local headers, the files, the central directory.
  var CRC_TABLE = (function () {
    var table = new Uint32Array(256);
    for (var n = 0; n < 256; n++) {
      var c = n;
      for (var k = 0; k < 8; k++) {
        c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      }
      table[n] = c >>> 0;
    }
    return table;
  })();

  function crc32(bytes) {
    var crc = 0xffffffff;
    for (var i = 0; i < bytes.length; i++) {
      crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
    }
    return (crc ^ 0xffffffff) >>> 0;
  }

  function zipOf(files, when) {  // files: [{path, text}] -> Blob
    var encoder = new TextEncoder();
    var time = (when.getHours() << 11) | (when.getMinutes() << 5) | (when.getSeconds() >> 1);
    var date = ((when.getFullYear() - 1980) << 9) | ((when.getMonth() + 1) << 5) | when.getDate();
    var parts = [], central = [], offset = 0;
    files.forEach(function (file) {
      var name = encoder.encode(file.path), data = encoder.encode(file.text);
      var crc = crc32(data);
      function header(signature, size) {
        var view = new DataView(new ArrayBuffer(size));
        view.setUint32(0, signature, true);
        return view;
      }
      // Fields shared by both headers, from "version needed" on (APPNOTE.TXT 4.3.7, 4.3.12).
      function common(view, at) {
        view.setUint16(at, 20, true);           // version needed: 2.0
        view.setUint16(at + 2, 0x0800, true);   // flags: names in UTF-8
        view.setUint16(at + 4, 0, true);        // method: stored
        view.setUint16(at + 6, time, true);
        view.setUint16(at + 8, date, true);
        view.setUint32(at + 10, crc, true);
        view.setUint32(at + 14, data.length, true);  // compressed size
        view.setUint32(at + 18, data.length, true);  // size
        view.setUint16(at + 22, name.length, true);
      }
      var local = header(0x04034b50, 30);
      common(local, 4);
      var entry = header(0x02014b50, 46);
      entry.setUint16(4, 20, true);  // made by: version 2.0
      common(entry, 6);
      entry.setUint32(42, offset, true);
      parts.push(local, name, data);
      central.push(entry, name);
      offset += 30 + name.length + data.length;
    });
    var size = central.reduce(function (total, part) { return total + part.byteLength; }, 0);
    var end = new DataView(new ArrayBuffer(22));
    end.setUint32(0, 0x06054b50, true);
    end.setUint16(8, files.length, true);
    end.setUint16(10, files.length, true);
    end.setUint32(12, size, true);
    end.setUint32(16, offset, true);
    return new Blob(parts.concat(central, [end]), { type: "application/zip" });
  }

  // A zip's files: [{path, bytes}]. Stored entries, and deflated ones where the browser has
  // DecompressionStream (a zip made again by another program).
  function unzip(buffer) {
    var view = new DataView(buffer), bytes = new Uint8Array(buffer);
    var end = -1;
    for (var at = buffer.byteLength - 22; at >= Math.max(0, buffer.byteLength - 65557); at--) {
      if (view.getUint32(at, true) === 0x06054b50) {
        end = at;
        break;
      }
    }
    if (end < 0) {
      return Promise.reject(new Error("this file is not a zip"));
    }
    var count = view.getUint16(end + 10, true), at2 = view.getUint32(end + 16, true);
    var decoder = new TextDecoder(), entries = [];
    for (var i = 0; i < count; i++) {
      if (view.getUint32(at2, true) !== 0x02014b50) {
        return Promise.reject(new Error("the zip's directory is damaged"));
      }
      var method = view.getUint16(at2 + 10, true);
      var nameLength = view.getUint16(at2 + 28, true);
      var extra = view.getUint16(at2 + 30, true), comment = view.getUint16(at2 + 32, true);
      var local = view.getUint32(at2 + 42, true);
      var path = decoder.decode(bytes.subarray(at2 + 46, at2 + 46 + nameLength));
      var start = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
      entries.push({ path: path, method: method,
                     data: bytes.subarray(start, start + view.getUint32(at2 + 20, true)) });
      at2 += 46 + nameLength + extra + comment;
    }
    return Promise.all(entries.map(function (entry) {
      if (entry.method === 0) {
        return { path: entry.path, bytes: entry.data };
      }
      if (entry.method === 8 && typeof DecompressionStream === "function") {
        var stream = new Blob([entry.data]).stream()
          .pipeThrough(new DecompressionStream("deflate-raw"));
        return new Response(stream).arrayBuffer().then(function (inflated) {
          return { path: entry.path, bytes: new Uint8Array(inflated) };
        });
      }
      return { path: entry.path, error: "compressed in a way this browser cannot read" };
    }));
  }

  function besidePath(contents, path, n) {
    var dot = path.lastIndexOf(".");
    var candidate = path.slice(0, dot) + IMPORTED + (n > 1 ? "-" + n : "") + path.slice(dot);
    return contents.get(candidate, { content: false }).then(
      function () { return besidePath(contents, path, n + 1); },  // taken: the next number
      function () { return candidate; });
  }

  // The document open in JupyterLab at a path, if any.
  function openDocument(app, path) {
    return Array.from(app.shell.widgets("main")).find(function (widget) {
      return widget.context && widget.context.path === path;
    }) || null;
  }

  // One notebook of the zip: restored at its path where nothing of the learner's is there (the
  // path is empty, holds the course's original, or the same notebook); beside it otherwise. A
  // notebook open with unsaved changes counts as the learner's (its save would undo the
  // import); one open without is shown again from the restored file.
  function importOne(app, site, file) {
    var contents = app.serviceManager.contents;
    var notebook;
    try {
      notebook = JSON.parse(new TextDecoder().decode(file.bytes));
    } catch (error) {
      return Promise.resolve({ path: file.path, skipped: "not a notebook (not JSON)" });
    }
    var save = function (path) {
      return contents.save(path, { type: "notebook", format: "json", content: notebook });
    };
    return contents.get(file.path, { content: true }).then(function (here) { return here; },
                                                          function () { return null; })
      .then(function (here) {
        if (here === null) {
          return save(file.path).then(function () { return { path: file.path, restored: true }; });
        }
        if (same(here.content, notebook)) {
          return { path: file.path, unchanged: true };
        }
        return original(site, file.path).then(function (course) {
          var open = openDocument(app, file.path);
          var courses = course !== null && same(here.content, course);
          // said only where they are the reason: a changed copy is kept anyway
          var unsaved = courses && !!(open && open.context.model && open.context.model.dirty);
          if (courses && !unsaved) {
            return save(file.path).then(function () {
              return open ? open.context.revert() : null;
            }).then(function () {
              return { path: file.path, restored: true };
            });
          }
          return besidePath(contents, file.path, 1).then(function (beside) {
            return save(beside).then(function () {
              return unsaved ? { path: file.path, beside: beside, unsaved: true }
                : { path: file.path, beside: beside };
            });
          });
        });
      })
      .catch(function (error) {
        return { path: file.path, skipped: "could not be saved: " + (error && error.message) };
      });
  }

  function importZip(app, buffer) {
    return Promise.all([unzip(buffer), siteFiles()]).then(function (found) {
      var files = found[0], site = found[1];
      return files.reduce(function (done, file) {  // one after another: beside names stay unique
        return done.then(function (results) {
          if (/\/$/.test(file.path)) {
            return results;
          }
          if (file.error || !/\.ipynb$/.test(file.path)) {
            return results.concat([{ path: file.path,
                                     skipped: file.error || "not a notebook (.ipynb)" }]);
          }
          return importOne(app, site, file).then(function (result) {
            return results.concat([result]);
          });
        });
      }, Promise.resolve([]));
    });
  }

  // A small dialog of its own (no JupyterLab package needed): a title, lines, a file input.
  var DIALOG_ID = "autograd-course-work";

  function dialog(title, words) {
    var old = document.getElementById(DIALOG_ID);
    if (old) {
      old.remove();
    }
    var box = document.createElement("div");
    box.id = DIALOG_ID;
    box.setAttribute("role", "dialog");
    box.setAttribute("aria-label", title);
    box.style.cssText = "position:fixed;top:4rem;left:50%;transform:translateX(-50%);" +
      "z-index:10000;max-width:40rem;width:90%;background:var(--jp-layout-color1,#fff);" +
      "color:var(--jp-ui-font-color1,#222);border:1px solid #888;border-radius:6px;" +
      "box-shadow:0 4px 24px rgba(0,0,0,.3);padding:1rem 1.2rem;font:14px system-ui,sans-serif";
    var heading = document.createElement("h2");
    heading.textContent = title;
    heading.style.cssText = "margin:0 0 .6rem;font-size:1.2em";
    var body = document.createElement("div");
    body.className = "autograd-course-work-body";
    var close = document.createElement("button");
    close.textContent = words("work.close");
    close.className = "jp-mod-styled jp-mod-reject";
    close.style.cssText = "margin-top:.8rem";
    close.onclick = function () { box.remove(); };
    box.append(heading, body, close);
    document.body.appendChild(box);
    return {
      say: function (text, tag) {
        var line = document.createElement(tag || "p");
        line.textContent = text;
        line.style.margin = ".3rem 0";
        body.appendChild(line);
        return line;
      },
      list: function (lines) {
        var ul = document.createElement("ul");
        lines.forEach(function (text) {
          var li = document.createElement("li");
          li.textContent = text;
          ul.appendChild(li);
        });
        body.appendChild(ul);
      },
      body: body,
    };
  }

  function stamp(when) {
    var pad = function (n) { return String(n).padStart(2, "0"); };
    return when.getFullYear() + "-" + pad(when.getMonth() + 1) + "-" + pad(when.getDate()) +
      "-" + pad(when.getHours()) + pad(when.getMinutes());
  }

  function downloadMyWork(app, words) {
    var box = dialog(words("work.download.title"), words);
    var waiting = box.say(words("work.download.looking"));
    return Promise.resolve(app.serviceManager.ready).then(function () {
      return changedNotebooks(app.serviceManager.contents);
    }).then(function (changed) {
      waiting.remove();
      if (!changed.length) {
        box.say(words("work.download.nothing"));
        return changed;
      }
      var when = new Date();
      var name = "autograd-my-work-" + stamp(when) + ".zip";
      var link = document.createElement("a");
      link.href = URL.createObjectURL(zipOf(changed, when));
      link.download = name;
      link.textContent = name;
      document.body.appendChild(link);
      link.click();
      link.remove();
      box.say(words(changed.length > 1 ? "work.download.saved_many" : "work.download.saved_one",
                    { name: name, count: changed.length }));
      box.list(changed.map(function (file) { return file.path; }));
      box.say(words("work.download.keep"));
      var again = document.createElement("a");
      again.href = link.href;
      again.download = name;
      again.textContent = words("work.download.again");
      box.say("").appendChild(again);
      return changed;
    }).catch(function (error) {
      waiting.remove();
      box.say(words("work.download.failed", { error: error && error.message }));
    });
  }

  function importMyWork(app, words) {
    var box = dialog(words("work.import.title"), words);
    box.say(words("work.import.choose", { mark: IMPORTED }));
    var input = document.createElement("input");
    input.type = "file";
    input.accept = ".zip,application/zip";
    input.className = "autograd-course-work-file";
    box.body.appendChild(input);
    input.onchange = function () {
      var file = input.files && input.files[0];
      if (!file) {
        return;
      }
      input.disabled = true;
      var working = box.say(words("work.import.importing", { name: file.name }));
      file.arrayBuffer().then(function (buffer) {
        return Promise.resolve(app.serviceManager.ready).then(function () {
          return importZip(app, buffer);
        });
      }).then(function (results) {
        working.remove();
        var restored = results.filter(function (r) { return r.restored; });
        var beside = results.filter(function (r) { return r.beside; });
        var unchanged = results.filter(function (r) { return r.unchanged; });
        var skipped = results.filter(function (r) { return r.skipped; });
        box.say(words("work.import.imported", { name: file.name }), "p");
        var lines = [];
        restored.forEach(function (r) { lines.push(words("work.import.restored", r)); });
        beside.forEach(function (r) {
          lines.push(words(r.unsaved ? "work.import.kept_both_unsaved" : "work.import.kept_both",
                           r));
        });
        unchanged.forEach(function (r) { lines.push(words("work.import.same", r)); });
        skipped.forEach(function (r) {
          lines.push(words("work.import.skipped", { path: r.path, reason: r.skipped }));
        });
        box.list(lines.length ? lines : [words("work.import.empty")]);
        box.body.setAttribute("data-results", JSON.stringify(results));
        if (app.commands.hasCommand("filebrowser:refresh")) {
          app.commands.execute("filebrowser:refresh").catch(function () {});
        }
      }).catch(function (error) {
        working.remove();
        box.say(words("work.import.failed", { error: error && error.message }));
      });
    };
    return Promise.resolve();
  }

  // My progress: course_tools/workspace.py's rules (make progress), read from the stored
  // exercise notebooks' check cells against the site's originals. Kept in step with the Python
  // by tests/web/test_progress_rules.py (both run over the course's notebooks and variants).
  var DONE = "done", NOT_QUITE = "not quite", UNCHECKED = "answered, not checked",
      NOT_STARTED = "not started";
  // Each state's words in the catalog (the same as make progress's, in either language).
  var STATE_KEYS = {};
  STATE_KEYS[DONE] = "progress.state.done";
  STATE_KEYS[NOT_QUITE] = "progress.state.not_quite";
  STATE_KEYS[UNCHECKED] = "progress.state.unchecked";
  STATE_KEYS[NOT_STARTED] = "progress.state.not_started";
  // notebook_files._HEADING: "## Exercise 4.1: title", and the Chinese edition's
  // "## \u7ec3\u4e60 4.1\uff1a\u6807\u9898" (\u7ec3\u4e60 is "exercise"; a full-width colon).
  var HEADING = /^#+\s*(?:Exercise\s+|\u7ec3\u4e60\s*)(\d+\.\d+)\s*[:\uff1a]?\s*(.*)$/m;
  var EXERCISE_TAG = "exercise";

  function asText(value) {
    return Array.isArray(value) ? value.join("") : (value || "");
  }

  function tagsOf(cell) {
    return (cell.metadata && cell.metadata.tags) || [];
  }

  // exercises/checks/answer_cells.checkers_called, without Python's parser: calls of a name
  // check_NN_..., outside comments and strings (an import of checkers calls none).
  var STRINGS = /("""|''')[\s\S]*?\1|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g;

  function callsAChecker(source) {
    var code = source.replace(STRINGS, '""').replace(/#.*$/gm, "");
    return /(^|[^\w.])check_\d\d_\w+\s*\(/.test(code);
  }

  function exercisesOf(notebook) {  // course_tools/notebook_files.exercises
    var found = [], heading = ["?", ""], answer = {};
    (notebook.cells || []).forEach(function (cell) {
      var source = asText(cell.source);
      if (cell.cell_type === "markdown") {
        var match = HEADING.exec(source);
        if (match) {
          heading = [match[1], match[2].trim()];
        }
      } else if (cell.cell_type === "code") {
        if (tagsOf(cell).indexOf(EXERCISE_TAG) >= 0) {
          answer = cell;
        } else if (callsAChecker(source)) {
          found.push([heading[0], heading[1], answer, cell]);
        }
      }
    });
    return found;
  }

  function verdict(outputs) {  // workspace._verdict
    var shown = (outputs || []).map(function (output) {
      return asText((output.data || {})["text/plain"]) + asText(output.text);
    }).join("");
    // A verdict in either edition's language (the Chinese words are the message catalog's,
    // exercises/checks/locale/zh_CN: "Correct", "Not quite" and workspace.RAISED, "raised an
    // error"; tests/course/test_messages.py checks that they are here).
    if (shown.indexOf("\u2705 Correct") >= 0 || shown.indexOf("\u2705 \u6b63\u786e") >= 0) {
      return DONE;
    }
    if (shown.indexOf("\u274c Not quite") >= 0 || shown.indexOf("raised an error") >= 0 ||
        shown.indexOf("\u274c \u8fd8\u4e0d\u5bf9") >= 0 ||
        shown.indexOf("\u8fd0\u884c\u65f6\u51fa\u9519") >= 0) {
      return NOT_QUITE;
    }
    return null;
  }

  function outputsOf(cell) {  // None where a cell has no "outputs" (Python's .get)
    return cell.outputs === undefined ? null : cell.outputs;
  }

  // workspace.exercise_states: [number, title, state] for each exercise of ``mine``.
  function exerciseStates(mine, course) {
    var courses = exercisesOf(course);
    return exercisesOf(mine).map(function (exercise, index) {
      var answer = exercise[2], check = exercise[3];
      var blank = index < courses.length ? courses[index][2] : {};
      var courseCheck = index < courses.length ? courses[index][3] : {};
      var untouched = asText(answer.source).trim() === asText(blank.source).trim();
      var said = verdict(check.outputs);
      var a = answer.execution_count, b = check.execution_count;
      var ranAfterCheck = Number.isInteger(a) && Number.isInteger(b) && a > b;
      if (same(outputsOf(check), outputsOf(courseCheck)) || ranAfterCheck) {
        said = null;  // the course's verdict on its stub, or one older than the answer
      }
      var state = untouched && said !== DONE ? NOT_STARTED : said || UNCHECKED;
      return [exercise[0], exercise[1], state];
    });
  }

  var EDITION_EXERCISES = {"en": /^exercises\/\d\d_[^/]*\.ipynb$/,
                           "zh-CN": /^exercises\/zh-CN\/\d\d_[^/]*\.ipynb$/};

  function myProgress(app, words) {
    var box = dialog(words("progress.title"), words);
    var waiting = box.say(words("progress.reading"));
    var contents = app.serviceManager.contents;
    return Promise.all([Promise.resolve(app.serviceManager.ready).then(function () {
      return notebookPaths(contents, "exercises");
    }), siteFiles()]).then(function (found) {
      var site = found[1];
      var paths = found[0].filter(function (path) {  // the course's, as make progress lists
        return site.has(path) && EDITION_EXERCISES[courseLanguage()].test(path);
      });
      return Promise.all(paths.map(function (path) {
        return Promise.all([contents.get(path, { content: true }), original(site, path)])
          .then(function (both) {
            return { path: path, states: exerciseStates(both[0].content, both[1]) };
          });
      }));
    }).then(function (notebooks) {
      waiting.remove();
      var totals = {}, all = 0;
      [DONE, NOT_QUITE, UNCHECKED, NOT_STARTED].forEach(function (s) { totals[s] = 0; });
      notebooks.forEach(function (notebook) {
        notebook.states.forEach(function (state) { totals[state[2]] += 1; all += 1; });
      });
      box.say(words(totals[UNCHECKED] ? "progress.total_unchecked" : "progress.total", {
        done: totals[DONE], not_quite: totals[NOT_QUITE], unchecked: totals[UNCHECKED],
        not_started: totals[NOT_STARTED], total: all,
      })).className = "autograd-progress-total";
      box.say(words("progress.saved_outputs"));
      var list = document.createElement("div");  // the notebooks, scrolled under the total
      list.style.cssText = "max-height:55vh;overflow:auto;border-top:1px solid #ccc";
      box.body.appendChild(list);
      notebooks.forEach(function (notebook) {
        var heading = document.createElement("h3");
        heading.textContent = notebook.path;
        heading.style.cssText = "margin:.5rem 0 .1rem;font-size:1em";
        var ul = document.createElement("ul");
        notebook.states.forEach(function (state) {
          var li = document.createElement("li");
          li.textContent = words("progress.exercise", {
            number: state[0], title: state[1].replace(/`/g, ""), state: words(STATE_KEYS[state[2]]),
          });
          ul.appendChild(li);
        });
        list.append(heading, ul);
      });
      box.body.setAttribute("data-progress", JSON.stringify(notebooks));
    }).catch(function (error) {
      waiting.remove();
      box.say(words("progress.failed", { error: error && error.message }));
    });
  }

  function addCourseWork(app) {
    if (!inJupyterLite() || !app.serviceManager || !app.serviceManager.contents) {
      return;
    }
    // The site's words, once the catalog has loaded: until then a label is empty, and the
    // menu entries are added only after it has (a command run waits for it).
    var messages = null;
    var words = function (key, values) {
      return messages ? say(messages, courseLanguage(), key, values) : "";
    };
    var withWords = function (show) {
      return function () {
        return catalogue().then(function (loaded) {
          messages = loaded;
          return show(app, words);
        });
      };
    };
    app.commands.addCommand(DOWNLOAD, {
      label: function () { return words("work.download.label"); },
      caption: function () { return words("work.download.caption"); },
      execute: withWords(downloadMyWork),
    });
    app.commands.addCommand(IMPORT, {
      label: function () { return words("work.import.label"); },
      caption: function () { return words("work.import.caption"); },
      execute: withWords(importMyWork),
    });
    app.commands.addCommand(PROGRESS, {
      label: function () { return words("progress.label"); },
      caption: function () { return words("progress.caption"); },
      execute: withWords(myProgress),
    });
    var asked = new URLSearchParams(window.location.search).get("course-work");
    Promise.all([app.restored, catalogue()]).then(function (ready) {
      messages = ready[1];
      app.commands.notifyCommandChanged();
      var menus = Array.from(app.shell.widgets("menu"));
      var main = menus.find(function (widget) { return widget.fileMenu; });
      if (main) {
        main.fileMenu.addGroup([{ command: DOWNLOAD }, { command: IMPORT },
                                { command: PROGRESS }], 90);
      }
      if (asked === "download") {
        app.commands.execute(DOWNLOAD);
      } else if (asked === "import") {
        app.commands.execute(IMPORT);
      } else if (asked === "progress") {
        app.commands.execute(PROGRESS);
      }
    }).catch(function (error) {
      console.warn("autograd-step-by-step: the File menu's course entries are missing, " +
                   "their words did not load:", error);
    });
  }

  // ------------------------------------------------------------------ 4. the kernel starting
  // In the browser edition the first kernel takes 15-25 s (Python, numpy and the course start
  // in the page), and JupyterLab's status bar says only "Initializing". A line in the
  // notebook's toolbar says what is happening and for how long, until the kernel is ready.
  // (The kernel tells the page nothing in between: its packages load inside loadPyodide.)
  // JupyterLab's display status while a kernel starts; the Pyodide kernel reports "unknown"
  // while its worker loads Python and the packages (measured: 'initializing' 4-6 s,
  // 'connecting' a moment, 'unknown' 20-40 s, then 'idle'), which counts until the kernel has been ready once ('unknown' is
  // also a notebook's status with no kernel chosen: not counted).
  var STARTING = ["initializing", "connecting", "starting", "restarting", "autorestarting"];
  var STATUS_CLASS = "autograd-kernel-starting";

  function showKernelStart(panel) {
    var context = panel.sessionContext;
    if (!panel.toolbar || !inJupyterLite()) {
      return;
    }
    lumino().then(function (widgets) {
      var node = document.createElement("span");
      node.className = STATUS_CLASS;
      node.setAttribute("role", "status");
      node.style.cssText = "padding:0 .6rem;font-size:var(--jp-ui-font-size1,13px);" +
        "color:var(--jp-ui-font-color1,#222);background:var(--jp-warn-color3,#fff3cd);" +
        "border-radius:3px;line-height:24px;white-space:nowrap";
      var line = new widgets.Widget({ node: node });
      var since = null, timer = null, ready = false;  // ready: idle or busy once
      function update() {
        var status = context.kernelDisplayStatus;
        ready = ready || status === "idle" || status === "busy";
        var starting = !panel.isDisposed && (STARTING.indexOf(status) >= 0 ||
          (status === "unknown" && !ready && !context.hasNoKernel));
        if (starting) {
          since = since === null ? Date.now() : since;
          var seconds = Math.round((Date.now() - since) / 1000);
          node.textContent = "Starting Python, numpy and the course: " + seconds + " s";
          line.show();
          if (timer === null) {
            timer = setInterval(update, 1000);
          }
        } else {
          line.hide();
          since = null;
          if (timer !== null) {
            clearInterval(timer);
            timer = null;
          }
        }
      }
      if (!panel.toolbar.insertBefore("spacer", STATUS_CLASS, line)) {
        panel.toolbar.addItem(STATUS_CLASS, line);
      }
      context.statusChanged.connect(update);
      context.kernelChanged.connect(function (_, change) {
        ready = ready && !(change && change.newValue);  // another kernel starts
        update();
      });
      panel.disposed.connect(function () {
        if (timer !== null) {
          clearInterval(timer);
        }
      });
      update();
    }).catch(function () {});  // no Lumino from the page: JupyterLab's own status only
  }

  // ------------------------------------------------------------------ 5. course updates
  // The learner's copy of a notebook records the course version it was made from; where the
  // site's version is another, the notebook says so and offers the new one beside it.
  var VERSIONS_URL = SITE_ROOT + "course-versions.json";  // course_tools/site/build.py
  var MESSAGES_URL = new URL("messages.json", HERE).href;  // this extension's catalog
  var UPDATE_CLASS = "autograd-course-update";
  var UPDATE_MARK = " (course update ";  // "NAME (course update DATE).ipynb"
  var cataloguePromise = null;

  // The catalog's words in the notebook's language: a Chinese notebook lives under a folder
  // zh-CN (as the checkers decide their language), every other one is English.
  function languageOf(path) {
    return path.split("/").indexOf("zh-CN") >= 0 ? "zh-CN" : "en";
  }

  function catalogue() {
    if (cataloguePromise === null) {
      cataloguePromise = fetch(MESSAGES_URL).then(function (response) {
        if (!response.ok) {
          throw new Error(MESSAGES_URL + ": " + response.status);
        }
        return response.json();
      });
      cataloguePromise.catch(function () { cataloguePromise = null; });
    }
    return cataloguePromise;
  }

  // messages[language][key] with {placeholders} filled in; English where a language lacks it.
  function say(messages, language, key, values) {
    var template = (messages[language] || {})[key] || messages.en[key];
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return values && name in values ? String(values[name]) : whole;
    });
  }

  function courseVersions() {
    return fetch(VERSIONS_URL, { cache: "no-cache" }).then(function (response) {
      return response.ok ? response.json() : null;
    }).catch(function () { return null; });
  }

  function copiedFrom(notebook) {
    return versionOf(notebook && notebook.metadata && notebook.metadata[COPY_KEY]);
  }

  function versionOf(mark) {
    return mark && typeof mark.copied_from === "string" ? mark.copied_from : null;
  }

  function markOf(version, path) {
    return { copied_from: version, notebook: path };
  }

  // What the notice says of a copy: null (nothing), or "update" (made from another version).
  function updateState(path, copied, versions) {
    var current = versions && versions.notebooks && versions.notebooks[path];
    return copied && current && copied !== current ? "update" : null;
  }

  // "notebooks/05_x.ipynb", "2026-11-29", 1 -> "notebooks/05_x (course update 2026-11-29).ipynb"
  // (then "... (course update 2026-11-29) 2.ipynb", 3, ... where a file has that name).
  function freshName(path, date, n) {
    var dot = path.lastIndexOf(".");
    return path.slice(0, dot) + UPDATE_MARK + date + ")" + (n > 1 ? " " + n : "") +
      path.slice(dot);
  }

  function folderOf(path) {
    var slash = path.lastIndexOf("/");
    return slash < 0 ? "" : path.slice(0, slash);
  }

  // A fresh copy of the current version already beside the notebook (any date), or null.
  function freshCopyThere(contents, path, current) {
    var stem = path.slice(path.lastIndexOf("/") + 1, path.lastIndexOf("."));
    return contents.get(folderOf(path), { content: true }).then(function (listing) {
      var candidates = (listing.content || []).filter(function (item) {
        return item.type === "notebook" && item.name.indexOf(stem + UPDATE_MARK) === 0;
      });
      return candidates.reduce(function (found, item) {
        return found.then(function (hit) {
          return hit || contents.get(item.path, { content: true }).then(function (model) {
            return copiedFrom(model.content) === current ? item.path : null;
          });
        });
      }, Promise.resolve(null));
    });
  }

  function freePath(contents, path, date, n) {
    var candidate = freshName(path, date, n);
    return contents.get(candidate, { content: false }).then(
      function () { return freePath(contents, path, date, n + 1); },
      function () { return candidate; });
  }

  // The site's current version, as a new notebook beside the learner's; its path.
  function makeFreshCopy(contents, path, versions) {
    return original(new Set([path]), path).then(function (course) {
      if (course === null) {
        throw new Error(path + " is not in the site");
      }
      course.metadata = Object.assign({}, course.metadata);
      course.metadata[COPY_KEY] = markOf(versions.notebooks[path], path);
      return freePath(contents, path, versions.date, 1).then(function (fresh) {
        return contents.save(fresh, { type: "notebook", format: "json", content: course })
          .then(function () { return fresh; });
      });
    });
  }

  // The bar above the notebook: what changed, and the fresh copy (made on request).
  // (``path``: the course's notebook the open one is a copy of)
  function showUpdate(app, panel, path, widgets, messages, versions, fresh) {
    var language = languageOf(path);
    var contents = app.serviceManager.contents;
    var node = document.createElement("div");
    node.className = UPDATE_CLASS;
    node.setAttribute("role", "status");
    node.setAttribute("lang", language);
    var inner = document.createElement("div");  // its height is the bar's (refit)
    inner.style.cssText = "display:flex;flex-wrap:wrap;align-items:center;gap:.4rem .8rem;" +
      "box-sizing:border-box;padding:.45rem .8rem;font-size:var(--jp-ui-font-size1,13px);" +
      "color:var(--jp-ui-font-color1,#222);background:var(--jp-info-color3,#e3f2fd);" +
      "border-bottom:1px solid var(--jp-border-color1,#bbb)";
    var text = document.createElement("span");
    text.className = UPDATE_CLASS + "-text";
    var actions = document.createElement("span");
    actions.style.cssText = "display:flex;gap:.5rem;margin-left:auto";
    inner.append(text, actions);
    node.appendChild(inner);
    var bar = new widgets.Widget({ node: node });
    // The notebook's header lays its widgets out at their minimum heights: the bar's is what
    // its words take, measured once shown and whenever they change.
    function refit() {
      requestAnimationFrame(function () {
        if (!bar.isDisposed && inner.offsetHeight > 0) {
          node.style.minHeight = inner.offsetHeight + "px";
          panel.contentHeader.fit();
        }
      });
    }
    function button(label, className, onclick) {
      var b = document.createElement("button");
      b.textContent = label;
      b.className = "jp-mod-styled " + className;
      b.onclick = onclick;
      actions.appendChild(b);
      return b;
    }
    function openFresh(freshPath) {
      return app.commands.execute("docmanager:open", { path: freshPath,
                                                       options: { mode: "split-right" } });
    }
    function offerOpen(freshPath, key) {
      node.setAttribute("data-state", key === "update.made" ? "made" : "there");
      node.setAttribute("data-fresh", freshPath);
      text.textContent = say(messages, language, key, { name: freshPath.split("/").pop() });
      refit();
      actions.replaceChildren();
      button(say(messages, language, "update.open"), "jp-mod-accept " + UPDATE_CLASS + "-open",
             function () { openFresh(freshPath); });
      button(say(messages, language, "update.close"), "jp-mod-reject", function () {
        bar.dispose();
      });
    }
    if (fresh) {
      offerOpen(fresh, "update.there");
    } else {
      node.setAttribute("data-state", "offer");
      text.textContent = say(messages, language, "update.changed", { date: versions.date });
      button(say(messages, language, "update.take"), "jp-mod-accept " + UPDATE_CLASS + "-take",
             function () {
               actions.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
               makeFreshCopy(contents, path, versions).then(function (made) {
                 offerOpen(made, "update.made");
                 if (app.commands.hasCommand("filebrowser:refresh")) {
                   app.commands.execute("filebrowser:refresh").catch(function () {});
                 }
                 return openFresh(made);
               }).catch(function (error) {
                 node.setAttribute("data-state", "failed");
                 text.textContent = say(messages, language, "update.failed",
                                        { error: error && error.message });
                 refit();
               });
             });
      button(say(messages, language, "update.close"), "jp-mod-reject", function () {
        bar.dispose();
      });
    }
    panel.contentHeader.addWidget(bar);
    refit();
    if (typeof ResizeObserver === "function") {  // the words wrap anew in a narrower panel
      var watching = new ResizeObserver(refit);
      watching.observe(inner);
      bar.disposed.connect(function () { watching.disconnect(); });
    }
    return bar;
  }

  // A notebook's cells as make workspace fingerprints them (types and sources, not outputs):
  // from a notebook's JSON, or from an open document's model.
  function cellsOf(notebook) {
    return JSON.stringify((notebook.cells || []).map(function (cell) {
      return [cell.cell_type, asText(cell.source)];
    }));
  }

  function cellsOfModel(model) {
    var cells = [];
    for (var i = 0; i < model.cells.length; i++) {
      var cell = model.cells.get(i);
      cells.push([cell.type, cell.sharedModel.getSource()]);
    }
    return JSON.stringify(cells);
  }

  // At open: the version this copy was made from (its metadata); for a notebook not marked
  // whose cells are the site's (the site's own file, or a copy that is of its version), the
  // site's version, written into the copy at its next save; then the notice, where the site's
  // version is another. A copy not marked whose cells differ (saved before copies were
  // marked) is of a version not known: nothing is said.
  function watchCourseVersion(panel) {
    var context = panel.context;
    var app = watchCourseVersion.app;
    if (!app || !context || !panel.contentHeader || !inJupyterLite() ||
        !/\.ipynb$/.test(context.path)) {
      return;
    }
    var path = context.path, contents = app.serviceManager.contents;
    var pending = null;  // the version to record at the next save
    var saved = false;   // a save started before the version was known
    function mark(model) {
      if (pending && model && model.sharedModel &&
          model.sharedModel.getMetadata(COPY_KEY) === undefined) {
        model.sharedModel.setMetadata(COPY_KEY, markOf(pending, path));
      }
    }
    context.saveState.connect(function (_, state) {
      // 'started' comes before the document is serialised: the mark goes into this save.
      if (state === "started") {
        saved = saved || pending === null;
        mark(context.model);
      }
    });
    // What was found, on the panel's node (tests/web read it): "not the course's", "site"
    // (cells as the site's, not marked yet), "unmarked", "current", "update", "failed".
    function found(state) {
      panel.node.setAttribute("data-autograd-course-version", state);
    }
    context.ready.then(function () {
      // as opened, before the learner can change it
      var copied = context.model.sharedModel.getMetadata(COPY_KEY);
      var opened = { copied: versionOf(copied),
                     cells: cellsOfModel(context.model) };
      // a fresh copy beside is a copy of the course's notebook its mark names
      var course = copied && typeof copied.notebook === "string" && opened.copied !== null ?
        copied.notebook : path;
      return courseVersions().then(function (versions) {
        if (!versions || !versions.notebooks || !(course in versions.notebooks)) {
          found("not the course's");  // (or a site without versions)
          return null;
        }
        var current = versions.notebooks[course];
        if (opened.copied === null) {
          return original(new Set([path]), path).then(function (course) {
            if (course === null || cellsOf(course) !== opened.cells) {
              found("unmarked");
              return null;
            }
            pending = current;
            if (saved) {
              mark(context.model);  // saved meanwhile without it: the next save has it
            }
            found("site");
            return null;
          });
        }
        if (updateState(course, opened.copied, versions) === null) {
          found("current");
          return null;
        }
        return Promise.all([lumino(), catalogue(), freshCopyThere(contents, course, current)])
          .then(function (parts) {
            if (!panel.isDisposed) {
              showUpdate(app, panel, course, parts[0], parts[1], versions, parts[2]);
              found("update");
            }
          });
      });
    }).catch(function (error) {
      found("failed");
      console.warn("autograd-step-by-step: the course-update check failed:", error);
    });
  }

  // For tests/web/test_progress_rules.py and test_course_update_in_browser.py (node): the
  // rules, outside JupyterLab.
  var courseWork = { exerciseStates: exerciseStates, zipOf: zipOf, updateState: updateState,
                     freshName: freshName, say: say, languageOf: languageOf, same: same };

  var modules = { "./index": plugin, "./extension": plugin, "./mimeExtension": mimeExtension };
  var container = {
    init: function (shareScope) {
      sharing = shareScope || null;
    },
    get: function (name) {
      if (!Object.prototype.hasOwnProperty.call(modules, name)) {
        return Promise.reject(new Error('Module "' + name + '" does not exist in container.'));
      }
      if (name === "./mimeExtension") {
        return mimeExtension().then(function (extension) {
          return function () { return { __esModule: true, default: extension }; };
        });
      }
      return Promise.resolve(function () {
        return { __esModule: true, default: modules[name] };
      });
    },
  };
  _JUPYTERLAB = typeof _JUPYTERLAB === "object" && _JUPYTERLAB ? _JUPYTERLAB : {};
  container.courseWork = courseWork;
  _JUPYTERLAB["autograd-step-by-step"] = container;
})();
