/* report.js - the one script of diskproof's HTML reports, embedded in the page
 * at build time. It loads nothing: it records script errors on the document
 * (data-js-error, which tests look for) and marks the page rendered
 * (data-rendered) once the document is complete. */
(function () {
	"use strict";
	window.addEventListener("error", function (e) {
		document.documentElement.setAttribute("data-js-error", String(e.message || e));
	});
	document.addEventListener("DOMContentLoaded", function () {
		var n = document.querySelectorAll("svg .series").length;
		document.documentElement.setAttribute("data-rendered", String(n));
	});
})();
