// Loads TFMA's view templates (vulcanized_tfma.js) once, at page load, so that the
// classic notebook's requirejs accepts them.
//
// Why: TFMA's widget adds vulcanized_tfma.js as a plain <script> when its first view
// renders. That file holds d3-tip's UMD wrapper, which calls an anonymous define()
// because requirejs is on the page; requirejs then throws "Mismatched anonymous
// define() module" at the next require(), which is the widget manager loading the
// next view's model, so one of render_slicing_metrics / render_plot /
// render_time_series fails ("Could not create a model"), whichever comes next.
// Here the file runs synchronously as an inline script while define() names the
// module, and a non-executing <script src> marker stops TFMA from loading it again
// (its loader only checks for a script with that src).
define(function () {
  'use strict';

  var MODULE = 'wide_deep_tfma/d3-tip';

  function templatesUrl() {
    var base = document.body.getAttribute('data-base-url') || '/';
    return base + 'nbextensions/tensorflow_model_analysis/vulcanized_tfma.js';
  }

  function runNamingDefine(code) {
    var realDefine = window.define;
    function namedDefine() {
      var args = Array.prototype.slice.call(arguments);
      if (typeof args[0] !== 'string') args.unshift(MODULE);
      return realDefine.apply(this, args);
    }
    namedDefine.amd = realDefine.amd;
    window.define = namedDefine;
    try {
      var script = document.createElement('script');
      script.text = code;
      document.head.appendChild(script);  // an inline script runs right here
    } finally {
      window.define = realDefine;
    }
  }

  function load_ipython_extension() {
    var url = templatesUrl();
    if (document.querySelector('script[src="' + url + '"]')) return;
    var marker = document.createElement('script');
    marker.type = 'text/x-wide-deep-loaded-inline';  // a type browsers neither fetch nor run
    marker.setAttribute('src', url);
    document.head.appendChild(marker);
    return fetch(url, {credentials: 'same-origin'})
      .then(function (response) {
        if (!response.ok) throw new Error(url + ': HTTP ' + response.status);
        return response.text();
      })
      .then(runNamingDefine)
      .catch(function (error) {
        console.error('wide_deep_tfma: TFMA view templates not loaded', error);
      });
  }

  return {load_ipython_extension: load_ipython_extension};
});
