/* A JupyterLab extension of the course, written by hand (no build step): it tells the
 * kernel what a check cell's answer cell holds now.
 *
 * Each check cell has the id of its checker ("check_04_snapshot") and the exercise cell
 * above it "answer_04_snapshot". When a check cell runs, this adds the answer cell's current
 * text to the execute request's metadata ("answerCellSource"); the kernel compares it with
 * the text the answer cell last ran with (exercises/checks/answer_cells.py). So a check never
 * judges an answer that was edited but not run again: it says so instead.
 *
 * JupyterLab loads an extension from a "container" with get() and init() (the format its
 * build tool writes); this file is one, by hand. It uses no JupyterLab package: it finds
 * notebook panels in the shell and wraps their kernel's requestExecute.
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

  var modules = { "./index": plugin, "./extension": plugin };
  var container = {
    init: function () {},
    get: function (name) {
      if (!Object.prototype.hasOwnProperty.call(modules, name)) {
        return Promise.reject(new Error('Module "' + name + '" does not exist in container.'));
      }
      return Promise.resolve(function () {
        return { __esModule: true, default: modules[name] };
      });
    },
  };
  _JUPYTERLAB = typeof _JUPYTERLAB === "object" && _JUPYTERLAB ? _JUPYTERLAB : {};
  _JUPYTERLAB["autograd-step-by-step"] = container;
})();
