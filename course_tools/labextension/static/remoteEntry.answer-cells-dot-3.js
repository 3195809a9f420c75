/* A JupyterLab extension of the course, written by hand (no build step). Two parts:
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
      watchWidgetPictures();
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
  _JUPYTERLAB["autograd-step-by-step"] = container;
})();
